import { accountByEmail, createAccount, findAccount, type Account } from "../accounts/repository";
import type { Env } from "../env";
import { PixelgateError } from "../errors";
import { settingsOf } from "../config/settings";
import { OAuthFailure, OAUTH_ENDPOINTS, type OAuthProfile } from "./oauth-providers";

// Which account a GitHub or Google identity signs in to: the one it signed in to before; else
// the account with the same email, when the provider says it verified that email (an unverified
// address could belong to anyone, so it neither links nor creates); else a new `free` account.

async function linkIdentity(db: D1Database, profile: OAuthProfile, accountId: string): Promise<void> {
  await db
    .prepare("INSERT OR IGNORE INTO oauth_identities (provider, subject, account_id, email, created_at) VALUES (?, ?, ?, ?, ?)")
    .bind(profile.provider, profile.subject, accountId, profile.email ?? "", new Date().toISOString())
    .run();
}

/** The profile picture is kept, but never overwrites one the account already has. */
async function keepPicture(db: D1Database, account: Account, picture: string | null): Promise<Account> {
  if (!picture || account.profilePicture) return account;
  await db.prepare("UPDATE accounts SET profile_picture = ? WHERE id = ? AND profile_picture IS NULL").bind(picture, account.id).run();
  return { ...account, profilePicture: picture };
}

export async function accountForProfile(env: Env, profile: OAuthProfile): Promise<Account> {
  const known = await env.DB
    .prepare("SELECT account_id FROM oauth_identities WHERE provider = ? AND subject = ?")
    .bind(profile.provider, profile.subject)
    .first<{ account_id: string }>();
  if (known) {
    const account = await findAccount(env.DB, known.account_id);
    if (account) return keepPicture(env.DB, account, profile.picture);
    // The account was deleted since: forget the link and treat the identity as new.
    await env.DB.prepare("DELETE FROM oauth_identities WHERE provider = ? AND subject = ?").bind(profile.provider, profile.subject).run();
  }
  const label = OAUTH_ENDPOINTS[profile.provider].label;
  if (!profile.email || !profile.emailVerified) {
    throw new OAuthFailure(`${label} did not confirm a verified email address for you. Verify your email at ${label}, or sign up with email and password.`, 400);
  }
  let account = await accountByEmail(env.DB, profile.email);
  if (!account) {
    try {
      account = await createAccount(env.DB, {
        name: profile.name,
        email: profile.email,
        provider: profile.provider,
        plan: "free",
        credits: settingsOf(env).freeSignupCredits,
        profilePicture: profile.picture,
      });
    } catch (error) {
      // Two callbacks for the same new email at once: the other one created it.
      if (!(error instanceof PixelgateError && error.param === "email")) throw error;
      account = await accountByEmail(env.DB, profile.email);
      if (!account) throw error;
    }
  }
  await linkIdentity(env.DB, profile, account.id);
  return keepPicture(env.DB, account, profile.picture);
}
