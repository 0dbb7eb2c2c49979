// The API choice lives with the wires (src/api), so the library can make it without the CLI's config code.
export * from '../api/api-choice.js';
