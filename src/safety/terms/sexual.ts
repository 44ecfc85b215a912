import { terms, type TermList } from "./types.ts";

// Sexual content and nudity. Pixelgate has no adult mode, so any nudity is refused, artistic or
// not. Words that are ordinary in other senses ("breast", "cock", "strip") are never enough on
// their own; they count only beside an exposure word, and their everyday phrases are safe.
export const SEXUAL_TERMS: TermList[] = [
  terms("sexual", `
    nude, nudes, naked, nudity, nudist, nudists, topless, bottomless, unclothed, undressed, disrobed
    without|no any? clothes|clothing, not wearing any? clothes|clothing|anything
    porn, porno, pornographic, pornography, porn*, xxx, nsfw, hentai, ecchi, ahegao, rule 34, r34
    erotic, erotica, lewd, smut, smutty, explicit sex|sexual|nudity|content
    sex, sexual, sexually, sexting, sex scene|act|toy|toys|tape, having|have sex, intercourse
    orgasm, orgasms, orgy, orgies, threesome, gangbang, masturbat*, blowjob, blowjobs, handjob, blow|hand job
    cum, cumshot, creampie, genitals, genital, genitalia, penis, penises, vagina, vaginas, vulva, clitoris
    testicles, boobs, boobies, tits, titties, nipple, nipples, areola, areolas, dildo, dildos, vibrator
    fetish, bdsm, bondage, striptease, strip tease, stripper, strippers, onlyfans, only fans, camgirl, dick pic|pics
    rape, raped, raping, rapist, rapists, molest*, grope, groped, groping, incest, bestiality, zoophilia
    sexual assault, sexually assaulted, spread legs, legs spread, in the nude, playboy centerfold
  `),
  // Body words that are only sexual when exposed ("bare breasts", "breasts exposed").
  terms("intimate-part", "breast, breasts, butt, buttocks, ass, booty, cleavage, crotch, groin"),
  terms("exposure", "bare, exposed, showing, visible, uncovered, huge, giant, big, large, massive, oiled, squeezing, grabbing, flashing"),
  // Suggestive words are allowed for adults; beside a minor term they are refused (rules.ts).
  terms("suggestive", `
    sexy, seductive, seductively, sensual, sultry, provocative, provocatively, suggestive, suggestively
    lingerie, flirty, alluring, revealing, skimpy, busty, voluptuous, kinky, naughty, horny, aroused
    undressing, stripping, bikini, underwear, panties, bra, thong
  `),
  terms("safe", `
    chicken|turkey|duck|goose breast|breasts, breast cancer|stroke|pocket|plate|milk|feeding|pump
    breast cancer awareness, nude colour|color|colours|colors|tone|tones|shade|shades|palette|lipstick|lips|heels|pumps|shoes|makeup|nails|nail|polish|beige|pink|eyeshadow|foundation|sandals|bra|blush|dress
    naked eye|mole|cake|flame|truth|tree|trees|branches|wire|bulb|chef|gun, naked mole rat
    sex pistols, sex education, sexual health|harassment|education|orientation|wellness, sex of the chick|kitten|puppy
    kick ass, butt of the joke, rifle butt, rape seed, rapeseed, bikini bottom
  `),
];
