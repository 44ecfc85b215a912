import { terms, type TermList } from "./types.ts";

// Minors. A minor term alone is ordinary ("kids playing on the beach"); beside any sexual or
// suggestive term the prompt is refused as sexual content involving minors (rules.ts), which
// wins over plain sexual content. "girl" and "boy" alone are not minor terms: prompts use them
// for adults too; the qualified forms ("little girl", "schoolgirl") are.
// "#young" is how the tokenizer writes a number from 1 to 17; "#young-yo" is "12yo".
export const MINOR_TERMS: TermList[] = [
  terms("sexual_minors", `
    lolicon, shotacon, jailbait, pedophile, pedophiles, pedophilia, paedophile, paedophiles, paedophilia
    pedo, pedos, child porn|pornography|exploitation, child sexual abuse, cp porn, underage porn|sex|nude|nudes
  `),
  terms("minor", `
    child, children, childs, kid, kids, kiddie, kiddies, kiddo, teen, teens, teenage, teenaged, teenager
    teenagers, tween, tweens, preteen, preteens, pre teen|teens, underage, minor, minors, toddler, toddlers
    infant, infants, baby, babies, schoolgirl, schoolgirls, schoolboy, schoolboys, school girl|girls|boy|boys
    loli, lolis, lolita, shota, shotas, young|little girl|girls|boy|boys, young looking, youngish, childlike, child like
    barely legal, high school|schooler|schoolers, highschool, middle school|schooler, elementary school
    daughter, stepdaughter, girl scout|scouts, boy scout|scouts
    #young year|years|yr|yrs old, #young-yo, #young yo|y
    one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen year|years old
  `),
];
