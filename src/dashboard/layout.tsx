import type { Child } from "hono/jsx";
import type { Account } from "../accounts/repository";
import { CSRF_FIELD } from "../auth/session-csrf";
import { BILLING_PATH } from "../payments/links";

// The page shell every dashboard page shares: a skip link, the header with the navigation and
// the sign-out form, one <main>, and a live region the script announces copies in.

export type Section = "overview" | "keys" | "usage" | "playground" | "billing";

const SECTIONS: Array<[Section, string, string]> = [
  ["overview", "Overview", "/dashboard"],
  ["keys", "API keys", "/dashboard/keys"],
  ["usage", "Usage", "/dashboard/usage"],
  ["playground", "Playground", "/dashboard/playground"],
  ["billing", "Billing", BILLING_PATH],
];

export interface Viewer {
  account: Account;
  csrf: string;
}

export function Page(props: { title: string; viewer?: Viewer; section?: Section; children?: Child }) {
  const { viewer, section } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · Pixelgate`}</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <div class="bar">
            <a class="brand" href="/dashboard">Pixelgate</a>
            {viewer ? (
              <>
                <nav aria-label="Dashboard">
                  <ul>
                    {SECTIONS.map(([id, label, href]) => (
                      <li>
                        <a href={href} aria-current={id === section ? "page" : undefined}>{label}</a>
                      </li>
                    ))}
                  </ul>
                </nav>
                <div class="who">
                  {viewer.account.profilePicture ? <img src={viewer.account.profilePicture} alt="" referrerpolicy="no-referrer" /> : null}
                  <span>{viewer.account.email}</span>
                  <form method="post" action="/dashboard/sign-out">
                    <input type="hidden" name={CSRF_FIELD} value={viewer.csrf} />
                    <button type="submit" class="link">Sign out</button>
                  </form>
                </div>
              </>
            ) : null}
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
        <div id="live" class="visually-hidden" aria-live="polite"></div>
      </body>
    </html>
  );
}

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name={CSRF_FIELD} value={props.token} />;
}

/** A problem with the whole form, announced to screen readers when the page loads. */
export function FormAlert(props: { message?: string | null }) {
  return props.message ? (
    <div class="alert" role="alert">
      {props.message}
    </div>
  ) : null;
}

export function formatDate(iso: string | null): string {
  return iso ? iso.replace("T", " ").slice(0, 16) + " UTC" : "never";
}

/** "Get credits": the billing page, which sells them or says how they are granted here. */
export function GetCreditsLink() {
  return <a href={BILLING_PATH} data-testid="get-credits">Get credits</a>;
}
