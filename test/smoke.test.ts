import { describe, expect, it } from "vitest";
import { call, newAccount, withKey } from "./support/fixtures";

describe("smoke", () => {
  it("serves /v1/me for a fresh account", async () => {
    const account = await newAccount({ credits: 42 });
    const response = await call("/v1/me", withKey(account.key));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { user: { id: string; credits: number } };
    expect(body.user.id).toBe(account.id);
    expect(body.user.credits).toBe(42);
  });
});
