import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { hasSignature, sign } from "../auth/session-csrf";
import type { DashboardContext } from "./respond";

// What a refused sign-in or sign-up form hands to the page it redirects to (post/redirect/get):
// the problems to show, what was typed (never the password), and the status the page answers
// with. It rides in a signed cookie that lives a minute and is read once, so a reload of the
// page after it shows a clean form and never posts the form again.

const FLASH_COOKIE = "__Host-pg_flash";
const COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: "Lax", path: "/" } as const;

export interface Flash {
  status: 400 | 401 | 429;
  problems: Record<string, string>;
  values: Record<string, string>;
  retryAfterSeconds?: number;
}

function encode(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function decode(text: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0)));
}

/** Sets the flash and answers with the redirect to `location`. */
export async function redirectWithFlash(c: DashboardContext, location: string, flash: Flash): Promise<Response> {
  // Typed values are capped so the cookie stays far below browsers' 4 KB limit.
  const values = Object.fromEntries(Object.entries(flash.values).map(([name, value]) => [name, value.slice(0, 200)]));
  const body = encode(JSON.stringify({ ...flash, values }));
  setCookie(c, FLASH_COOKIE, `${body}.${await sign(c.env, `flash:${body}`)}`, { ...COOKIE_OPTIONS, maxAge: 60 });
  return c.redirect(location, 303);
}

/** The flash set by the last POST, once; null when there is none or it was tampered with. */
export async function takeFlash(c: DashboardContext): Promise<Flash | null> {
  const cookie = getCookie(c, FLASH_COOKIE);
  if (cookie === undefined) return null;
  deleteCookie(c, FLASH_COOKIE, COOKIE_OPTIONS);
  const [body, mac] = cookie.split(".");
  if (!body || !mac || !(await hasSignature(c.env, `flash:${body}`, mac))) return null;
  try {
    return JSON.parse(decode(body)) as Flash;
  } catch {
    return null;
  }
}
