/** A random 32-bit seed, for calls that did not ask for one; results always report it. */
export function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}
