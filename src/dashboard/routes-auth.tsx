import { Hono } from "hono";
import { beginOAuth, completeOAuth } from "../auth/oauth";
import { accountForProfile } from "../auth/oauth-accounts";
import { OAuthFailure } from "../auth/oauth-providers";
import { csrfToken } from "../auth/session-csrf";
import { currentSession, endSession, startSession } from "../auth/session";
import type { AppEnv } from "../env";
import { signIn, signUp } from "./local-accounts";
import { MessagePage, SignInPage, SignUpPage } from "./pages/sign-in";
import { checkedForm, field, render, type DashboardContext } from "./respond";
import { freeSignupCredits, oauthClient, oauthClients } from "./settings";
import { clientIp, type Throttle } from "./sign-in-limit";

// Signing in and out: email and password, GitHub, Google.

function providersOf(c: DashboardContext) {
  return oauthClients(c.env).map((client) => client.provider);
}

function throttledPage(c: DashboardContext, throttle: Throttle) {
  c.header("Retry-After", String(throttle.retryAfterSeconds));
  const minutes = Math.ceil(throttle.retryAfterSeconds / 60);
  const message = `Too many attempts. Wait ${minutes} ${minutes === 1 ? "minute" : "minutes"} and try again.`;
  return render(c, <MessagePage title="Please wait" message={message} link={["/dashboard/sign-in", "Back to sign-in"]} />, 429);
}

export const authRoutes = new Hono<AppEnv>()
  .get("/sign-in", async (c) => {
    if (await currentSession(c)) return c.redirect("/dashboard", 303);
    const notice = c.req.query("signed-out") !== undefined ? "You are signed out." : undefined;
    return render(c, <SignInPage csrf={await csrfToken(c, null)} providers={providersOf(c)} notice={notice} />);
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
    if ("throttle" in outcome) return throttledPage(c, outcome.throttle);
    const page = <SignInPage csrf={await csrfToken(c, null)} providers={providersOf(c)} email={email} problems={{ form: outcome.problem }} />;
    return render(c, page, 401);
  })
  .get("/sign-up", async (c) => {
    if (await currentSession(c)) return c.redirect("/dashboard", 303);
    return render(c, <SignUpPage csrf={await csrfToken(c, null)} providers={providersOf(c)} freeCredits={freeSignupCredits(c.env)} />);
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
    if ("throttle" in outcome) return throttledPage(c, outcome.throttle);
    const page = (
      <SignUpPage csrf={await csrfToken(c, null)} providers={providersOf(c)} freeCredits={freeSignupCredits(c.env)}
        name={form.name} email={form.email} problems={{ form: "Check the highlighted fields.", ...outcome.problems }} />
    );
    return render(c, page, 400);
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
