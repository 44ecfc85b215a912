import { Hono } from "hono";
import { beginOAuth, completeOAuth } from "../auth/oauth";
import { accountForProfile } from "../auth/oauth-accounts";
import { OAuthFailure, oauthClient, oauthClients } from "../auth/oauth-providers";
import { csrfToken } from "../auth/session-csrf";
import { currentSession, endSession, startSession } from "../auth/session";
import { settingsOf } from "../config/settings";
import type { AppEnv } from "../env";
import { redirectWithFlash, takeFlash, type Flash } from "./flash";
import { signIn, signUp } from "./local-accounts";
import { MessagePage, SignInPage, SignUpPage } from "./pages/sign-in";
import { checkedForm, field, render, type DashboardContext } from "./respond";
import { clientIp, type Throttle } from "./sign-in-limit";

// Signing in and out: email and password, GitHub, Google. Every POST answers with a redirect
// (post/redirect/get): a refused form goes back to its page with a one-time flash, so reloading
// or going Back never sends a password again.

function providersOf(c: DashboardContext) {
  return oauthClients(c.env).map((client) => client.provider);
}

function throttled(c: DashboardContext, location: string, throttle: Throttle) {
  const minutes = Math.ceil(throttle.retryAfterSeconds / 60);
  const message = `Too many attempts. Wait ${minutes} ${minutes === 1 ? "minute" : "minutes"} and try again.`;
  return redirectWithFlash(c, location, { status: 429, problems: { form: message }, values: {}, retryAfterSeconds: throttle.retryAfterSeconds });
}

function throttledPage(c: DashboardContext, flash: Flash) {
  c.header("Retry-After", String(flash.retryAfterSeconds ?? 60));
  return render(c, <MessagePage title="Please wait" message={flash.problems.form ?? "Too many attempts."} link={["/dashboard/sign-in", "Back to sign-in"]} />, 429);
}

export const authRoutes = new Hono<AppEnv>()
  .get("/sign-in", async (c) => {
    if (await currentSession(c)) return c.redirect("/dashboard", 303);
    const flash = await takeFlash(c);
    if (flash?.status === 429) return throttledPage(c, flash);
    const notice = c.req.query("signed-out") !== undefined ? "You are signed out." : undefined;
    const page = <SignInPage csrf={await csrfToken(c, null)} providers={providersOf(c)} notice={notice} email={flash?.values.email} problems={flash?.problems} />;
    return render(c, page, flash?.status ?? 200);
  })
  .post("/sign-in", async (c) => {
    const body = await checkedForm(c, null);
    if (body instanceof Response) return body;
    const email = field(body, "email");
    const outcome = await signIn(c.env, email, field(body, "password"), clientIp(c));
    if (outcome.ok) {
      await startSession(c, outcome.account.id);
      return c.redirect("/dashboard", 303);
    }
    if ("throttle" in outcome) return throttled(c, "/dashboard/sign-in", outcome.throttle);
    return redirectWithFlash(c, "/dashboard/sign-in", { status: 401, problems: { form: outcome.problem }, values: { email } });
  })
  .get("/sign-up", async (c) => {
    if (await currentSession(c)) return c.redirect("/dashboard", 303);
    const flash = await takeFlash(c);
    if (flash?.status === 429) return throttledPage(c, flash);
    const page = (
      <SignUpPage csrf={await csrfToken(c, null)} providers={providersOf(c)} freeCredits={settingsOf(c.env).freeSignupCredits}
        name={flash?.values.name} email={flash?.values.email} problems={flash?.problems} />
    );
    return render(c, page, flash?.status ?? 200);
  })
  .post("/sign-up", async (c) => {
    const body = await checkedForm(c, null);
    if (body instanceof Response) return body;
    const form = { name: field(body, "name"), email: field(body, "email"), password: field(body, "password") };
    const outcome = await signUp(c.env, form, clientIp(c));
    if (outcome.ok) {
      await startSession(c, outcome.account.id);
      return c.redirect("/dashboard?welcome", 303);
    }
    if ("throttle" in outcome) return throttled(c, "/dashboard/sign-up", outcome.throttle);
    const problems = { form: "Check the highlighted fields.", ...outcome.problems } as Record<string, string>;
    return redirectWithFlash(c, "/dashboard/sign-up", { status: 400, problems, values: { name: form.name, email: form.email } });
  })
  .post("/sign-out", async (c) => {
    const session = await currentSession(c);
    const body = await checkedForm(c, session);
    if (body instanceof Response) return body;
    await endSession(c, session);
    return c.redirect("/dashboard/sign-in?signed-out", 303);
  })
  .get("/oauth/:provider/start", async (c) => {
    const client = oauthClient(c.env, c.req.param("provider"));
    if (!client) return render(c, <MessagePage title="Not available" message="This sign-in method is not configured here." link={["/dashboard/sign-in", "Back to sign-in"]} />, 404);
    return c.redirect(await beginOAuth(c, client), 302);
  })
  .get("/oauth/:provider/callback", async (c) => {
    const client = oauthClient(c.env, c.req.param("provider"));
    if (!client) return render(c, <MessagePage title="Not available" message="This sign-in method is not configured here." link={["/dashboard/sign-in", "Back to sign-in"]} />, 404);
    try {
      const account = await accountForProfile(c.env, await completeOAuth(c, client));
      await startSession(c, account.id);
      return c.redirect("/dashboard", 303);
    } catch (error) {
      if (!(error instanceof OAuthFailure)) throw error;
      return render(c, <MessagePage title="Sign-in did not complete" message={error.message} link={["/dashboard/sign-in", "Back to sign-in"]} />, error.status);
    }
  });
