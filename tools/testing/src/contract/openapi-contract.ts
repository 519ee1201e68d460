import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];

interface OperationEntry {
  method: string;
  template: string;
  pattern: RegExp;
  parameters: number;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Where a request landed in the document. */
export interface MatchedOperation {
  method: string;
  /** The path template, e.g. `/api/v1/decision-tables/{id}`. */
  template: string;
}

/**
 * An OpenAPI 3.0 document as a response checker: finds the operation of a request (a literal path beats a
 * templated one), and says what in a response the operation does not allow (an undocumented status or media
 * type, or a JSON body that fails the status's schema, checked by ajv).
 */
export class OpenApiContract {
  private readonly operations: OperationEntry[] = [];
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: any) {
    this.ajv = new Ajv({ strict: false, allErrors: true, discriminator: false });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: document.components ?? {} }, 'openapi');
    for (const [template, item] of Object.entries<any>(document.paths ?? {})) {
      for (const method of METHODS) {
        if (!item[method]) continue;
        const source = template
          .split('/')
          .map((segment) =>
            /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
          )
          .join('/');
        this.operations.push({
          method: method.toUpperCase(),
          template,
          pattern: new RegExp(`^${source}/?$`),
          parameters: (template.match(/\{/g) ?? []).length,
          responses: item[method].responses ?? {},
        });
      }
    }
    this.operations.sort((a, b) => a.parameters - b.parameters);
  }

  match(method: string, path: string): MatchedOperation | undefined {
    const decoded = path.split('?')[0];
    const found = this.operations.find((o) => o.method === method.toUpperCase() && o.pattern.test(decoded));
    return found && { method: found.method, template: found.template };
  }

  /** What is wrong with a response to `method path` (empty when it matches the document). */
  check(method: string, path: string, status: number, contentType: string | null, body: string): string[] {
    const operation = this.operations.find(
      (o) => o.method === method.toUpperCase() && o.pattern.test(path.split('?')[0]),
    );
    const where = `${method.toUpperCase()} ${path.split('?')[0]} → ${status}`;
    if (!operation) {
      // an unknown route answered as unknown is right; anything else is a route the document does not list
      return status === 404 || status === 405
        ? []
        : [`${where}: no operation in the document for this request`];
    }
    const key = String(status);
    const response =
      operation.responses[key] ?? operation.responses[`${key[0]}XX`] ?? operation.responses.default;
    if (!response) {
      return [`${where}: status ${status} is not documented for ${operation.method} ${operation.template}`];
    }
    const content = response.content ?? {};
    if (Object.keys(content).length === 0 || method.toUpperCase() === 'HEAD') {
      return body.length === 0 || method.toUpperCase() === 'HEAD'
        ? []
        : [`${where}: a body was sent where ${operation.method} ${operation.template} documents none`];
    }
    const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
    const declared =
      content[mediaType] ??
      content[`${mediaType.split('/')[0]}/*`] ??
      content['*/*'] ??
      (body.length === 0 ? { schema: undefined } : undefined);
    if (!declared) {
      return [
        `${where}: media type '${mediaType || '(none)'}' is not documented (${Object.keys(content).join(', ')})`,
      ];
    }
    if (!declared.schema || !/^application\/([a-z.+-]*\+)?json$/.test(mediaType)) return [];
    let value: unknown;
    try {
      value = body.length ? JSON.parse(body) : undefined;
    } catch {
      return [`${where}: the body is not JSON although the content type says so`];
    }
    const validatorKey = `${operation.method} ${operation.template} ${key} ${mediaType}`;
    let validate = this.validators.get(validatorKey);
    if (!validate) {
      validate = this.ajv.compile(rebase(declared.schema));
      this.validators.set(validatorKey, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).slice(0, 5).map((e) => {
      const at = e.instancePath || '(body)';
      return `${where}: ${at} ${e.message}${e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : ''}`;
    });
  }
}

/** `#/components/…` → `openapi#/components/…`: the document's components are registered as `openapi`. */
function rebase(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
}
