import { expect } from "vitest";
import { PixelgateError } from "../../src/errors.ts";

/** The PixelgateError a synchronous call throws; fails the test if it throws nothing or something else. */
export function thrown(run: () => unknown): PixelgateError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PixelgateError);
    return error as PixelgateError;
  }
  throw new Error("expected a PixelgateError");
}
