import { OAUTH_ENDPOINTS } from "../../auth/oauth-providers";
import type { FieldProblems } from "../local-accounts";
import type { OAuthProviderName } from "../../config/settings";
import { CsrfField, FormAlert, Page } from "../layout";

// Sign-in and sign-up: one card each, the same field markup, errors next to their fields
// (aria-describedby) and the form's own problem in an alert at the top.

interface AuthFormProps {
  csrf: string;
  providers: OAuthProviderName[];
  email?: string;
  name?: string;
  problems?: FieldProblems;
  notice?: string;
}

function FieldError(props: { id: string; message?: string }) {
  return props.message ? <p id={props.id} class="error">{props.message}</p> : null;
}

function OAuthButtons(props: { providers: OAuthProviderName[]; verb: string }) {
  if (props.providers.length === 0) return null;
  return (
    <div class="oauth">
      {props.providers.map((provider) => (
        <a class="button secondary" href={`/dashboard/oauth/${provider}/start`}>
          {`${props.verb} with ${OAUTH_ENDPOINTS[provider].label}`}
        </a>
      ))}
    </div>
  );
}

function EmailField(props: { value?: string; problem?: string; autocomplete: string }) {
  return (
    <>
      <label for="email">Email</label>
      <input id="email" name="email" type="email" required autocomplete={props.autocomplete} value={props.value ?? ""}
        aria-invalid={props.problem ? "true" : undefined} aria-describedby={props.problem ? "email-error" : undefined} />
      <FieldError id="email-error" message={props.problem} />
    </>
  );
}

export function SignInPage(props: AuthFormProps) {
  const problems = props.problems ?? {};
  return (
    <Page title="Sign in">
      <section class="card narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Pixelgate</h1>
        {props.notice ? <p class="notice" role="status">{props.notice}</p> : null}
        <FormAlert message={problems.form} />
        <form method="post" action="/dashboard/sign-in" data-busy="Signing in…">
          <CsrfField token={props.csrf} />
          <EmailField value={props.email} problem={problems.email} autocomplete="username" />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" required autocomplete="current-password" />
          <div class="actions">
            <button type="submit">Sign in</button>
            <a href="/dashboard/sign-up">Create an account</a>
          </div>
        </form>
        <OAuthButtons providers={props.providers} verb="Sign in" />
      </section>
    </Page>
  );
}

export function SignUpPage(props: AuthFormProps & { freeCredits: number }) {
  const problems = props.problems ?? {};
  return (
    <Page title="Create an account">
      <section class="card narrow" aria-labelledby="sign-up-title">
        <h1 id="sign-up-title">Create your Pixelgate account</h1>
        <p class="muted">{`Free plan with ${props.freeCredits} credits to start. No card needed.`}</p>
        <FormAlert message={problems.form} />
        <form method="post" action="/dashboard/sign-up" data-busy="Creating your account…">
          <CsrfField token={props.csrf} />
          <label for="name">Name <span class="hint">Optional; shown on your account.</span></label>
          <input id="name" name="name" type="text" autocomplete="name" maxlength={200} value={props.name ?? ""}
            aria-invalid={problems.name ? "true" : undefined} aria-describedby={problems.name ? "name-error" : undefined} />
          <FieldError id="name-error" message={problems.name} />
          <EmailField value={props.email} problem={problems.email} autocomplete="email" />
          <label for="password">Password <span class="hint" id="password-hint">At least 10 characters.</span></label>
          <input id="password" name="password" type="password" required minlength={10} maxlength={256} autocomplete="new-password"
            aria-invalid={problems.password ? "true" : undefined}
            aria-describedby={problems.password ? "password-hint password-error" : "password-hint"} />
          <FieldError id="password-error" message={problems.password} />
          <div class="actions">
            <button type="submit">Create account</button>
            <a href="/dashboard/sign-in">I already have an account</a>
          </div>
        </form>
        <OAuthButtons providers={props.providers} verb="Sign up" />
      </section>
    </Page>
  );
}

/** A page for what went wrong outside a form: a refused CSRF token, a failed OAuth callback, 404. */
export function MessagePage(props: { title: string; message: string; link?: [string, string] }) {
  const [href, label] = props.link ?? ["/dashboard", "Back to the dashboard"];
  return (
    <Page title={props.title}>
      <section class="card narrow" aria-labelledby="message-title">
        <h1 id="message-title">{props.title}</h1>
        <p role="alert">{props.message}</p>
        <p><a href={href}>{label}</a></p>
      </section>
    </Page>
  );
}
