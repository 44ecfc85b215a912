import type { Context } from "hono";
import type { JSX } from "hono/jsx/jsx-runtime";
import { checkCsrf, CSRF_FIELD, CsrfRefusal, csrfToken } from "../auth/session-csrf";
import { currentSession, type DashboardSession } from "../auth/session";
import type { AppEnv } from "../env";
import type { Viewer } from "./layout";
import { MessagePage } from "./pages/sign-in";

// What every dashboard route does around its page: render with a doctype, find the signed-in
// person (or send them to sign in), and read a form only after its CSRF check passed.

export type DashboardContext = Context<AppEnv>;
export type FormBody = Record<string, string | File | (string | File)[]>;

export async function render(c: DashboardContext, page: JSX.Element, status: 200 | 400 | 401 | 403 | 404 | 410 | 413 | 429 | 502 = 200): Promise<Response> {
  return c.html(`<!doctype html>${await page}`, status);
}

export interface SignedIn {
  session: DashboardSession;
  viewer: Viewer;
}

/** The signed-in person, or a redirect to the sign-in page. */
export async function signedIn(c: DashboardContext): Promise<SignedIn | Response> {
  const session = await currentSession(c);
  if (!session) return c.redirect("/dashboard/sign-in", 303);
  return { session, viewer: { account: session.account, csrf: await csrfToken(c, session) } };
}

/** The posted form, once its token and origin passed; else a 403 page to answer with. */
export async function checkedForm(c: DashboardContext, session: DashboardSession | null): Promise<FormBody | Response> {
  const body = (await c.req.parseBody({ all: false }).catch(() => ({}))) as FormBody;
  try {
    await checkCsrf(c, session, body[CSRF_FIELD]);
  } catch (error) {
    if (!(error instanceof CsrfRefusal)) throw error;
    const page = <MessagePage title="This form could not be accepted" message={`${error.message} Reload the page and try again.`} />;
    return render(c, page, 403);
  }
  return body;
}

export function field(body: FormBody, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}
