import { terms, type TermList } from "./types.ts";

// Self-harm and suicide, including eating-disorder promotion. Awareness and prevention imagery
// passes ("suicide prevention hotline poster"); a cut on a wrist does not (rules.ts).
export const SELF_HARM_TERMS: TermList[] = [
  terms("self_harm", `
    suicide, suicides, suicidal, selfharm, self harm|harming|injury|injuries|mutilation, cutter scars
    kill|killing|kills|killed|hang|hanging|hanged|cut|cutting|cuts|shoot|shooting|shot|stab|stabbing|drown|drowning|starve|starving|starved|poison|poisoning|harm|harming|harmed|strangle|strangling myself|yourself|himself|herself|themselves|themself|oneself
    end|ending|ended|take|taking|took my|his|her|their|your own? life, commit|committing|commits|committed suicide
    want|wants|wanting|wanted to die, wanna die, want to end it all, end it all, unalive|unaliving myself|yourself|himself|herself
    pro ana|mia, proana, promia, thinspo, thinspiration, bonespo, meanspo, starve to be thin
    overdose|overdosing on sleeping? pills|painkillers, overdosing, noose around my|his|her|their neck, slit|slitting|slashed|slashing my|his|her|their? wrist|wrists
    razor cuts on my|his|her|their arm|arms|thigh|thighs|wrist|wrists, self inflicted wounds|cuts|injuries, jump to my|his|her|their death
    my|his|her|their last goodbye note, suicide note|letter
  `),
  terms("self-cut", "cut, cuts, cutting, slit, slitting, slash, slashed, slashing, scars, scarred, razor, razors, razor blade, blade, blades, bleeding"),
  terms("wrist", "wrist, wrists, forearm, forearms, my arm, my arms, my thighs"),
  terms("safe", `
    suicide prevention|awareness|hotline|helpline|squad|lifeline, suicide crisis line, suicide squad, suicide doors, suicide king
    overdose awareness|prevention, cutting board|boards|edge|tool|tools|mat|table, cut flowers, cut glass
    wrist watch|watches|band|bands|strap|rest|brace|corsage|warmer|warmers, razor sharp, razor clam|clams
  `),
];
