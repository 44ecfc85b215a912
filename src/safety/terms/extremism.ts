import { terms, type TermList } from "./types.ts";

// Violent extremism: terrorist groups' propaganda, recruitment and glorification. A group's
// name alone is news vocabulary ("Isis" is also a goddess); beside a propaganda word it is
// refused (rules.ts). Nazi imagery used as propaganda is refused under hate.
export const EXTREMISM_TERMS: TermList[] = [
  terms("extremism", `
    suicide bomber|bombers|bombing|bombings|vest|vests|belt|attack|attacks, jihadist, jihadists, jihadi, jihadis
    isis|isil|daesh|taliban|jihadist flag|flags|banner|banners|propaganda|recruitment|recruiter|fighters
    terrorist propaganda|recruitment|manifesto, terror propaganda, shooter manifesto, martyrdom operation|video
    glorifying|glorify|glorified|celebrating|praising terrorism|terrorists|terror attacks|attack|attacks|the attack|the attacks
    join the jihad|caliphate, holy war against, behead the infidels, death to america|the west|the infidels|infidels
  `),
  terms("terror-group", `
    isis, isil, daesh, islamic state, al qaeda, alqaeda, al qaida, taliban, hezbollah, hamas, boko haram, al shabaab
    jihad, caliphate, terrorist, terrorists, terrorism, terror attack|attacks|group|cell, school shooter, mass shooter
    atomwaffen, unabomber, mujahideen
  `),
  terms("propaganda", `
    propaganda, recruitment, recruiting, recruit, recruits, join, joining, glorify, glorifying, glorified
    glorification, celebrate, celebrating, praising, praise, honoring, honouring, tribute to, martyr, martyrs
    martyrdom, manifesto, flag, flags, banner, banners, call to arms, pledging allegiance, allegiance, salute
    saluting, leaflet, leaflets, flyer, flyers, pamphlet, pamphlets, as heroes, as a hero
  `),
  // Antiquity words mean "Isis" is the goddess: the terror-group rule stands down (rules.ts).
  terms("antiquity", "goddess, god, gods, egyptian, egypt, mythology, myth, deity, pharaoh, pharaohs, temple, hieroglyphs, hieroglyphics, osiris, horus, ancient"),
  terms("safe", `
    counter terrorism|terrorist|terror, counterterrorism, anti terrorism|terrorist|terror, antiterrorism
    isis goddess, goddess isis, the goddess isis, egyptian goddess, victims of terrorism|terror
  `),
];
