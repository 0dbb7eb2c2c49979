// The one error the engine throws on purpose: its kind; the server maps kinds to HTTP. Anything else is a bug.
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
