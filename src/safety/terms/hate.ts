import { rot13, terms, type TermList } from "./types.ts";

// Hate: slurs, hate symbols used as propaganda, and dehumanising statements about a protected
// group. Naming a group is ordinary ("a Jewish wedding", "a gay pride parade"); the refusal
// needs the group joined to a dehumanising claim ("X are vermin"), a call to destroy it
// ("exterminate the X") or a death wish ("X should die"), see rules.ts.
// The slurs are stored ROT13-encoded so this file does not spell them out; the screen decodes
// them once when it compiles its vocabulary.
const SLURS = rot13(`
  avttre, avttref, avttn, avttnf, fnaqavttre, fnaqavttref, xvxr, xvxrf, jrgonpx, jrgonpxf, enturnq, enturnqf
  gbjryurnq, gbjryurnqf, tbbx, tbbxf, snttbg, snttbgf, snt, sntf, genaal, genaavrf, ornare, ornaref, fcvp, fcvpf
  puvax, puvaxf
`);
const SLUR_SAFE_PHRASES = rot13("puvax va gur|uvf|ure|lbhe nezbe|nezbhe, fcvp naq fcna");

export const HATE_TERMS: TermList[] = [
  terms("hate", SLURS),
  terms("hate", `
    heil hitler, sieg heil, white power, white pride worldwide, white supremacy, white supremacist, white supremacists
    kkk, ku klux klan, 1488, master race, race war, racial holy war, ethnic cleansing, final solution
    neo nazi|nazis, neonazi, neonazis, holocaust denial|hoax|fake|lie, holocaust never happened, gas chambers were fake
    blackface, racist|antisemitic|homophobic|transphobic|islamophobic caricature|caricatures|cartoon|cartoons|meme|memes|propaganda|poster|posters|joke|jokes
    women are inferior|property|objects|animals|subhuman, anti semitic|jewish caricature|cartoon|meme|propaganda|poster, burning cross on a lawn, kill all jews|muslims|gays|blacks|immigrants
  `),
  terms("group", `
    jew, jews, jewish, muslim, muslims, islam, christian, christians, catholic, catholics, hindu, hindus, sikh, sikhs
    black people|folks|men|women, blacks, white people, whites, africans, asians, asian people, chinese people, chinese
    mexicans, mexican people, hispanics, latinos, immigrants, immigrant, migrants, refugees, arabs, arab people
    gays, gay people|men, lesbians, homosexuals, queers, trans people|women|men, transgender people, transgenders
    disabled people, the disabled, roma, gypsies, gypsy, indians, jewish people, muslim people, palestinians, israelis
  `),
  terms("copula", "are, r, is, were, as, like, be, seen as, depicted as, shown as, portrayed as"),
  terms("dehumanising", `
    vermin, subhuman, subhumans, sub human|humans, untermensch, parasites, parasite, cockroaches, cockroach
    rats, animals, apes, monkeys, pigs, dogs, savages, filth, scum, a disease, a plague, diseased, inferior
    not human, less than human, an inferior race, evil, the enemy, invaders, a virus
  `),
  terms("hostile-act", `
    exterminate, exterminating, extermination of, eradicate, eradicating, wipe out, wiping out, get rid of all?
    gas the, gassing, gassed, death to all?, kill all the?, hang all the?, deport all the?, burn all the?, purge the|all
  `),
  terms("death-wish", `
    should|must|deserve|deserves to? die, should|must be killed|exterminated|shot|gassed|hanged|eliminated|burned|wiped out
    deserve to be killed|exterminated|gassed|shot|hanged, need to die|go, must go back, go back to your country
  `),
  terms("hate-symbol", "nazi, nazis, swastika, swastikas, ss bolts, totenkopf, confederate flag, klan hood|hoods"),
  terms("safe", `${SLUR_SAFE_PHRASES}, trans atlantic|pacific|siberian|alpine, gay pride, pride parade, women's rights, refugee aid|support|welcome`),
];
