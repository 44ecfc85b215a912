import { exports } from "cloudflare:workers";
import { expect } from "vitest";

// A minimal browser for the dashboard route tests: it keeps cookies (what Set-Cookie says,
// honouring Max-Age=0 deletions), sends Origin on POST as browsers do, and reads the CSRF token
// out of the page it was served, like a form does.

export const ORIGIN = "https://pixelgate.test";

let counter = 0;

/** A unique email and a client IP of its own, so tests never share accounts or throttles. */
export function freshIdentity(): { email: string; ip: string } {
  counter++;
  const id = `${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  return { email: `dash-${id}@example.com`, ip: `10.${counter % 250}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}` };
}

export class TestBrowser {
  readonly cookies = new Map<string, string>();
  constructor(readonly ip: string = freshIdentity().ip) {}

  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", this.cookieHeader());
    headers.set("CF-Connecting-IP", this.ip);
    const url = path.startsWith("http") ? path : ORIGIN + path;
    const response = await exports.default.fetch(new Request(url, { ...init, headers, redirect: "manual" }));
    this.remember(response);
    return response;
  }

  get(path: string): Promise<Response> {
    return this.fetch(path);
  }

  /** GET, following redirects as a browser's address bar does (the playground's tool address leads to its form's). */
  async page(path: string): Promise<Response> {
    let response = await this.get(path);
    for (let hops = 0; hops < 5 && response.status === 303; hops++) {
      this.location = response.headers.get("Location")!;
      response = await this.get(this.location);
    }
    return response;
  }

  /** The page a form's answer redirects to (every dashboard POST answers 303: post/redirect/get). */
  async follow(answer: Response): Promise<Response> {
    expect(answer.status, await answer.clone().text()).toBe(303);
    this.location = answer.headers.get("Location")!;
    return this.get(this.location);
  }

  /** Where the last followed redirect went: the address bar after a form. */
  location = "";

  /** Submits the form and follows its redirect, as a browser does; returns the page shown. */
  async submitAndFollow(pagePath: string, action: string, fields: Record<string, string | Blob>): Promise<Response> {
    return this.follow(await this.submit(pagePath, action, fields));
  }

  /** GET the page, then POST the form with its CSRF token (or the one given) and these fields. */
  async submit(pagePath: string, action: string, fields: Record<string, string | Blob>, options: { csrf?: string; origin?: string | null } = {}): Promise<Response> {
    const csrf = options.csrf ?? csrfOf(await (await this.page(pagePath)).text());
    const body = new FormData();
    body.set("csrf", csrf);
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    const headers: Record<string, string> = {};
    if (options.origin !== null) headers.Origin = options.origin ?? ORIGIN;
    return this.fetch(action, { method: "POST", body, headers });
  }
}

export function csrfOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  expect(match, "the page has a form with a CSRF token").not.toBeNull();
  return match![1]!;
}

export const PASSWORD = "correct horse battery";

/** Signs up a fresh account in this browser; returns its email. */
export async function signUpIn(browser: TestBrowser, email = freshIdentity().email, name = "Dash Tester"): Promise<string> {
  const response = await browser.submit("/dashboard/sign-up", "/dashboard/sign-up", { name, email, password: PASSWORD });
  expect(response.status, await response.clone().text()).toBe(303);
  expect(response.headers.get("Location")).toBe("/dashboard?welcome");
  return email;
}

export async function accountIdOf(email: string, db: D1Database): Promise<string> {
  const row = await db.prepare("SELECT id FROM accounts WHERE email = ?").bind(email).first<{ id: string }>();
  expect(row, `an account for ${email}`).not.toBeNull();
  return row!.id;
}

/** Text of the page without tags, whitespace collapsed: what a person reads. */
export function visibleText(html: string): string {
  return html.replace(/<(script|style)[\s\S]*?<\/\1>/g, " ").replace(/<[^>]+>/g, " ").replace(/&[a-z#0-9]+;/g, " ").replace(/\s+/g, " ");
}
