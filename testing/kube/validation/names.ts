/**
 * Name and label checks of k8s.io/apimachinery/pkg/util/validation, with their exact messages
 * (`a lowercase RFC 1123 subdomain must consist of ...`).
 */

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';

const reLabel = new RegExp(`^${DNS1123_LABEL}$`);
const reSubdomain = new RegExp(`^${DNS1123_SUBDOMAIN}$`);
const re1035 = new RegExp(`^${DNS1035_LABEL}$`);
const reQualified = new RegExp(`^${QUALIFIED_NAME}$`);
const reLabelValue = new RegExp(`^${LABEL_VALUE}$`);

/** validation.RegexError: examples joined by " or " after a comma (hence the double space). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) s += ' or ';
    s += `'${ex}', `;
  });
  return `${s}regex used for validation is '${fmt}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;

export function dns1123LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!reLabel.test(v)) {
    if (reSubdomain.test(v)) errs.push('must not contain dots');
    else
      errs.push(
        regexError(
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
          DNS1123_LABEL,
          'my-name',
          '123-abc',
        ),
      );
  }
  return errs;
}

export function dns1123SubdomainErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!reSubdomain.test(v)) {
    errs.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN,
        'example.com',
      ),
    );
  }
  return errs;
}

export function dns1035LabelErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!re1035.test(v)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
        DNS1035_LABEL,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

/** IsQualifiedName: `[prefix/]name` as used by label and annotation keys. */
export function qualifiedNameErrors(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push(`prefix part ${'must be non-empty'}`);
    else for (const e of dns1123SubdomainErrors(prefix)) errs.push(`prefix part ${e}`);
  } else {
    return [
      regexError(
        "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        QUALIFIED_NAME,
        'MyName',
        'my.name',
        '123-abc',
      ) + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (name.length && !reQualified.test(name)) {
    errs.push(
      `name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME, 'MyName', 'my.name', '123-abc')}`,
    );
  }
  return errs;
}

export function labelValueErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!reLabelValue.test(v)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** ConfigMap and Secret data keys: IsConfigMapKey. */
export function configMapKeyErrors(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!/^[-._a-zA-Z0-9]+$/.test(v)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        '[-._a-zA-Z0-9]+',
        'key.name',
        'KEY_NAME',
        'key-name',
      ),
    );
  }
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Path segment names (ValidatePathSegmentName): no '/', '%', '.' or '..'. */
export function pathSegmentErrors(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (v.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}
