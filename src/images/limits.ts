// The input-image limits (docs/operations.md "Limits"), in one place so the loaders, the tests and
// the docs cannot disagree.

/** One input image, counted in decoded bytes (base64 payload decoded, URL body as delivered). */
export const MAX_INPUT_IMAGE_BYTES = 20 * 1024 * 1024;

/** Whole budget for one reference-image fetch: every redirect hop and the body together. */
export const IMAGE_FETCH_TIMEOUT_MS = 10_000;

/** Redirects followed by hand before the fetch is refused (a 4th redirect fails). */
export const MAX_IMAGE_REDIRECTS = 3;

export const MAX_INPUT_IMAGE_MB = MAX_INPUT_IMAGE_BYTES / 1024 / 1024;
