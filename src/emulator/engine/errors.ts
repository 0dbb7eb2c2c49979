/**
 * The one error type the engine throws on purpose. The HTTP adapter answers it with `status` and
 * the message as a plain-text body; anything else escaping the engine is a bug and becomes a 500.
 */
export type EngineErrorStatus = 400 | 404 | 409;

export class EngineError extends Error {
  readonly status: EngineErrorStatus;

  constructor(status: EngineErrorStatus, message: string) {
    super(message);
    this.name = 'EngineError';
    this.status = status;
  }
}

export const badRequest = (message: string): EngineError => new EngineError(400, message);
export const notFound = (message: string): EngineError => new EngineError(404, message);
export const conflict = (message: string): EngineError => new EngineError(409, message);
