/**
 * The "Use it" tab's copy-paste snippets: an example input made from the program's input
 * DataModel JSON schema, and the same request as curl and as Python with `requests`.
 *
 * The token is never written into a snippet: both read it from `$STUDIO_TOKEN`.
 */

type Schema = Record<string, unknown>;
export type SchemaEntry = { name: string; schema: unknown };

const asSchema = (value: unknown): Schema =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Schema) : {};

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  let node: unknown = root;
  for (const part of ref.slice(2).split('/')) node = asSchema(node)[part];
  return asSchema(node);
}

/** A value that fits `schema` (its default or first example where it has one). */
export function exampleValue(schema: unknown, root: Schema = asSchema(schema), depth = 0): unknown {
  const node = resolve(asSchema(schema), root);
  if (depth > 8) return null;
  if ('default' in node) return node.default;
  if (Array.isArray(node.examples) && node.examples.length) return node.examples[0];
  if ('const' in node) return node.const;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  const choices = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
  if (Array.isArray(choices) && choices.length) {
    const first = choices.find((c) => asSchema(c).type !== 'null') ?? choices[0];
    return exampleValue(first, root, depth + 1);
  }
  const type = Array.isArray(node.type) ? node.type.find((t) => t !== 'null') : node.type;
  switch (type) {
    case 'string':
      return typeof node.title === 'string' ? `${node.title}…` : '…';
    case 'integer':
    case 'number':
      return typeof node.minimum === 'number' ? node.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [exampleValue(node.items, root, depth + 1)];
    case 'null':
      return null;
    default: {
      const properties = asSchema(node.properties);
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [
          key,
          exampleValue(value, root, depth + 1),
        ]),
      );
    }
  }
}

/** The example input of a deployment: one object, or a list for a program with several Inputs. */
export function exampleInput(inputs: SchemaEntry[], singleInput: boolean): unknown {
  const values = inputs.map((entry) => exampleValue(entry.schema));
  return singleInput ? values[0] : values;
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** The request as a curl command (token from `$STUDIO_TOKEN`). */
export function curlSnippet(url: string, input: unknown): string {
  const body = JSON.stringify({ input });
  return [
    `curl -X POST ${shellQuote(url)} \\`,
    `  -H "Authorization: Token $STUDIO_TOKEN" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

/** A JSON value as a Python literal (True / False / None), indented like `json.dumps(indent=4)`. */
export function pythonLiteral(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  const inner = ' '.repeat(indent + 4);
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'None';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[\n${value.map((v) => `${inner}${pythonLiteral(v, indent + 4)}`).join(',\n')},\n${pad}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.length) return '{}';
  const lines = entries.map(
    ([key, v]) => `${inner}${JSON.stringify(key)}: ${pythonLiteral(v, indent + 4)}`,
  );
  return `{\n${lines.join(',\n')},\n${pad}}`;
}

/** The request in Python with `requests` (token from the STUDIO_TOKEN environment variable). */
export function pythonSnippet(url: string, input: unknown): string {
  return [
    'import os',
    '',
    'import requests',
    '',
    'response = requests.post(',
    `    ${JSON.stringify(url)},`,
    '    headers={"Authorization": f"Token {os.environ[\'STUDIO_TOKEN\']}"},',
    `    json={"input": ${pythonLiteral(input, 4)}},`,
    '    timeout=120,',
    ')',
    'response.raise_for_status()',
    'print(response.json()["output"])',
  ].join('\n');
}
