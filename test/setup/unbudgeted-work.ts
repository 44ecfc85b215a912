import { afterEach, expect } from "vitest";
import { watchUnbudgetedWork } from "../../src/codecs/fuel.ts";

// Codec work a request does outside any budget of its own (src/codecs/fuel.ts: a billed call's,
// a preview's) fails the test that made it: a new path that forgot its budget cannot slip by.
// Work the tests do themselves, outside any request, is not watched.

const takeUnbudgeted = watchUnbudgetedWork();

afterEach(() => {
  expect(takeUnbudgeted(), "codec work ran in a request outside any budget of its own").toEqual([]);
});
