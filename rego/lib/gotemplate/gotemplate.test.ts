import { describe, expect, it } from 'vitest';
import { JSONNumber, TemplateError, renderTemplate, type TemplateValue } from './index.js';

const data: TemplateValue = new Map<string, TemplateValue>([
  ['n', new JSONNumber('0')],
  ['name', 'world'],
  ['items', ['a', 'b']],
  ['user', new Map<string, TemplateValue>([['admin', true]])],
]);
const render = (src: string): string => renderTemplate(src, data, () => {});

// Expected output and messages are Go's text/template with missingkey=error.
describe('renderTemplate', () => {
  it.each([
    { name: 'substitutes fields', src: 'hello {{.name}}', want: 'hello world' },
    { name: 'treats a json.Number as a non-empty string', src: '{{if .n}}set{{else}}unset{{end}}', want: 'set' },
    { name: 'ranges with index and value', src: '{{range $i, $v := .items}}{{$i}}={{$v}} {{end}}', want: '0=a 1=b ' },
    { name: 'trims around actions', src: 'a  {{- .name -}}  b', want: 'aworldb' },
    { name: 'pipes into printf', src: '{{.name | printf "%q"}}', want: '"world"' },
    { name: 'reads nested maps with with', src: '{{with .user}}{{.admin}}{{end}}', want: 'true' },
    { name: 'compares with eq and len', src: '{{eq (len .items) 2}}', want: 'true' },
  ])('$name', ({ src, want }) => {
    expect(render(src)).toBe(want);
  });

  it.each([
    {
      src: '{{.missing}}',
      message: 'template: template:1:2: executing "template" at <.missing>: map has no entry for key "missing"',
    },
    { src: '{{foo}}', message: 'function "foo" not defined' },
    { src: 'a {{ .x', message: 'template: template:1: unclosed action' },
  ])('fails on $src with Go’s message', ({ src, message }) => {
    expect(() => render(src)).toThrow(TemplateError);
    expect(() => render(src)).toThrow(message);
  });
});
