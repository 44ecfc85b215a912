import { terms, type TermList } from "./types.ts";

// Illegal harm an image can carry out of the service: instructions or diagrams for explosives,
// chemical weapons or untraceable guns, hard-drug manufacture and use, forged documents and
// money. Guns, bombers (the jacket, the aircraft), bath bombs and pharmacies are ordinary.
export const ILLEGAL_TERMS: TermList[] = [
  terms("illegal", `
    pipe bomb, pipe bombs, nail bomb, pressure cooker bomb, car bomb, molotov cocktail, molotov cocktails
    homemade|diy|improvised explosive|explosives|bomb|bombs|grenade|napalm|detonator, ied, ieds, ghost gun, ghost guns
    3d printed gun|guns|firearm|firearms|pistol, untraceable gun|guns|firearm|firearms, auto sear, full auto conversion
    meth lab, crystal meth, crack pipe, crack cocaine, smoking crack, cook|cooking|making meth, meth recipe, shooting up heroin
    lines of cocaine|coke, snorting cocaine|coke|heroin|lines, injecting heroin|fentanyl|meth, fentanyl lab
    credit card skimmer, card skimmer
  `),
  terms("make", `
    make, making, makes, build, building, builds, assemble, assembling, construct, constructing, cook, cooking
    synthesize, synthesise, synthesizing, synthesising, synthesis, brew, brewing, manufacture, manufacturing
    how to, recipe, recipes, instructions, step by step, guide, diagram, tutorial, blueprint, blueprints, schematic, schematics
    ingredients, formula, detonate, detonating, wiring
  `),
  terms("explosive", `
    bomb, bombs, explosive, explosives, explosive device, detonator, detonators, grenade, grenades, napalm, thermite
    tnt, c4, semtex, dynamite, sarin, ricin, nerve agent|gas, mustard gas, chlorine gas, anthrax, dirty bomb
    silencer, suppressor, gun silencer, machine gun conversion, landmine
  `),
  terms("drug", "cocaine, coke, heroin, meth, methamphetamine, fentanyl, crack, lsd, mdma, ketamine, opium, pcp, krokodil, drugs"),
  terms("drug-scene", `
    snorting, snort, lines, line of, pile, piles, bag, bags, brick, bricks, kilo, kilos, powder, syringe, needle, needles
    pipe, smoking, inject, injecting, cooking, cook, lab, selling, sell, dealer, dealers, dealing, recipe, making, make
    synthesize, synthesise, buy, buying, stash, overdosing, high on, using
  `),
  terms("prevention", "awareness, prevention, say no, antidrug, anti drug, rehab, recovery, psa, public service, warning, dangers of, addiction help"),
  terms("forgery", "fake, fakes, counterfeit, counterfeits, counterfeiting, forged, forge, forging, fraudulent, falsified, replica"),
  terms("document", `
    passport, passports, id, ids, id card, id cards, identity card, driver's license, drivers license, driving licence
    license, licence, banknote, banknotes, bank notes, dollar bills, bills, money, currency, cash, euro notes, social security card
    visa, diploma, diplomas, birth certificate, prescription, prescriptions, credit card, credit cards, covid vaccine card
  `),
  terms("safe", `
    bath bomb|bombs, photo bomb|bombs|bombing, photobomb, photobombing, bomb pop|pops|shelter|shelters|jacket|jackets|squad|disposal
    bomber jacket|jackets|plane|planes|aircraft, b52 bomber, da bomb, cherry bomb|bombs, flavor|flavour bomb, seed bomb|bombs
    cracked, crack in the, sidewalk crack, coke bottle|can|zero, diet coke, coca cola, play money, monopoly money, fake plant|plants|flowers|snow|fur|leather|tan|smile|news|beard|mustache|moustache
    crack an egg, crack a smile
  `),
];
