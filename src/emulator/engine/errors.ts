/**
 * The one error type the engine throws on purpose. It says what kind of refusal it is; the server
 * decides how to answer each kind (HTTP status), so the engine knows nothing of HTTP. Anything
 * else escaping the engine is a bug.
 */
export type EngineErrorKind = 'invalid' | 'not_found' | 'conflict';

export class EngineError extends Error {
  readonly kind: EngineErrorKind;

  constructor(kind: EngineErrorKind, message: string) {
    super(message);
    this.name = 'EngineError';
    this.kind = kind;
  }
}

export const badRequest = (message: string): EngineError => new EngineError('invalid', message);
export const notFound = (message: string): EngineError => new EngineError('not_found', message);
export const conflict = (message: string): EngineError => new EngineError('conflict', message);
