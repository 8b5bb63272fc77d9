/**
 * UUIDs: random version 4 generation, github.com/google/uuid's Parse (plain, braced, urn:uuid: or 32
 * hex digits) and the fields OPA's internal/uuid derives from one.
 *
 * API: newUUIDv4() → string; parseUUID(s) → 16 bytes | undefined; uuidFields(bytes) → UUIDFields.
 */
export { newUUIDv4, parseUUID, uuidFields, type UUIDFields } from './uuid.js';
