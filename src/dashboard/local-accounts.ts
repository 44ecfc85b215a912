import { accountByEmail, createAccount, type Account } from "../accounts/repository";
import { hashPassword, passwordProblem } from "../auth/password-hash";
import { storedPasswordOf, storePasswordHash, verifyPassword } from "../auth/password";
import { settingsOf } from "../config/settings";
import type { Env } from "../env";
import { PixelgateError } from "../errors";
import { forgiveEmail, recordAttempt, throttled, type Throttle } from "./sign-in-limit";

// Sign-up and sign-in with email and password (provider `local`).

export interface SignUpForm {
  name: string;
  email: string;
  password: string;
}

/** What went wrong with a form, per field, in words for the person filling it in. */
export type FieldProblems = Partial<Record<"name" | "email" | "password" | "form", string>>;

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailProblem(email: string): string | null {
  if (email === "") return "Enter your email address.";
  if (email.length > 320 || !EMAIL_PATTERN.test(email)) return "Enter an email address like name@example.com.";
  return null;
}

export type SignUpOutcome = { ok: true; account: Account } | { ok: false; problems: FieldProblems } | { ok: false; throttle: Throttle };

/** A new `free` account with FREE_SIGNUP_CREDITS opening credits and a password. */
export async function signUp(env: Env, form: SignUpForm, ip: string): Promise<SignUpOutcome> {
  const email = form.email.trim();
  const name = form.name.trim() || email.split("@")[0] || "New user";
  const problems: FieldProblems = {};
  const emailIssue = emailProblem(email);
  if (emailIssue) problems.email = emailIssue;
  if (name.length > 200) problems.name = "Use at most 200 characters.";
  const passwordIssue = passwordProblem(form.password, email);
  if (passwordIssue) problems.password = passwordIssue;
  if (Object.keys(problems).length > 0) return { ok: false, problems };

  const throttle = await throttled(env.DB, [["signup-ip", ip]]);
  if (throttle) return { ok: false, throttle };
  await recordAttempt(env.DB, [["signup-ip", ip]]);
  const hash = await hashPassword(form.password);
  try {
    // The password is written with the account, so a second copy of this form (a double click)
    // finds both and signs in below, never an account without its password.
    const account = await createAccount(env.DB, { name, email, provider: "local", plan: "free", credits: settingsOf(env).freeSignupCredits },
      (accountId, at) => [storePasswordHash(env.DB, accountId, hash, at)]);
    return { ok: true, account };
  } catch (error) {
    if (!(error instanceof PixelgateError && error.param === "email")) throw error;
  }
  // The email has an account. With its password (the form sent twice, or someone who forgot they
  // signed up) this is a sign-in, throttled and counted like one; otherwise the form says so.
  const existing = await signIn(env, email, form.password, ip);
  if (existing.ok || "throttle" in existing) return existing;
  return { ok: false, problems: { email: "An account with this email already exists. Sign in instead." } };
}

export type SignInOutcome = { ok: true; account: Account } | { ok: false; problem: string } | { ok: false; throttle: Throttle };

/**
 * Checks the email and password. Wrong email and wrong password get the same answer, after the
 * same work, so the form does not tell which emails have accounts.
 */
export async function signIn(env: Env, emailInput: string, password: string, ip: string): Promise<SignInOutcome> {
  const email = emailInput.trim();
  if (email === "" || password === "") return { ok: false, problem: "Enter your email address and password." };
  const throttle = await throttled(env.DB, [["email", email], ["ip", ip]]);
  if (throttle) return { ok: false, throttle };
  const account = email.length <= 320 ? await accountByEmail(env.DB, email) : null;
  const stored = account ? await storedPasswordOf(env.DB, account.id) : null;
  const matches = await verifyPassword(password.slice(0, 1024), stored);
  if (!account || !matches) {
    await recordAttempt(env.DB, [["email", email], ["ip", ip]]);
    return { ok: false, problem: "That email and password do not match an account." };
  }
  await forgiveEmail(env.DB, email);
  return { ok: true, account };
}
