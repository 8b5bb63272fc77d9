/**
 * Go's crypto/x509 (with the DER reading of cryptobyte and encoding/asn1) as OPA's crypto.* and
 * io.jwt.* builtins use it: certificates, certificate requests and keys parsed with Go's rules and
 * error texts, rendered as the JSON encoding/json makes of Go's types; chain verification
 * (Certificate.Verify); and tls.X509KeyPair.
 *
 * API: certsFromString(s) → Certificate[]; parseCertificate(der); certificateJSON(cert, withURIs);
 * certificateRequestJSON(der); privateKeysFromPEM(s); parseSPKI(der); keyPairJSON(cert, key);
 * verifyChain(certs, options) (throws VerifyError); parseURL(s) (url.Parse for SAN URIs). Malformed
 * input throws X509Error, bad base64 Base64Error (lib/goencoding), both with Go's text.
 */
export { certificateJSON, parseCertificate, parseCertificates, type Certificate } from './certificate.js';
export { certificateRequestJSON } from './csr.js';
export { parseAnyPrivateKey, parseSPKI, type PrivateKey, type PublicKey } from './keys.js';
export { X509Error, b64, type JSONish } from './name.js';
export { certsFromString, keyPairJSON, privateKeysFromPEM } from './pem.js';
export { parseURL, type GoURL } from './san.js';
export { VerifyError, verifyChain, type VerifyOptions } from './verify.js';
