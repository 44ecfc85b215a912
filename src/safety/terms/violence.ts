import { terms, type TermList } from "./types.ts";

// Violence and gore. Battles, weapons, knives and fantasy fights are ordinary image subjects;
// what is refused is gore (bodies torn, blood over injuries) and real harm done to a person or
// an animal: a violent verb followed by a human target ("stabbing a man", rules.ts).
export const VIOLENCE_TERMS: TermList[] = [
  terms("violence", `
    gore, gory, goriest, gruesome, disembowel*, dismember*, decapitat*, eviscerat*, mutilat*, beheaded, beheading
    beheadings, entrails, intestines spilling|spilled|hanging|ripped, guts spilling|spilled|everywhere|ripped
    severed head|heads|arm|arms|leg|legs|limb|limbs|hand|hands|finger|fingers
    limbs torn|ripped off, torn|ripped limb from limb, bloodbath, blood bath, blood splatter|spatter|soaked|drenched|everywhere|pouring|gushing
    pool|pools|puddle of blood, covered|drenched|soaked|dripping|splattered in|with blood, bloody corpse|corpses|body|bodies|massacre
    mangled body|bodies|corpse|corpses, rotting corpse|corpses|body|bodies, pile of dead? bodies|corpses
    dead bodies, mass grave, shot dead, shot in the head|face|chest, stabbed to death, beaten to death, hacked to death
    burned|burnt|buried|skinned|eaten alive, school|mass shooting|shootings, brutal murder|murders|killing|killings|beating
    murder scene|victim|victims, crime scene photo|photos, execution style, firing squad execution, snuff film|video
    torture porn, lynching, lynched, massacre, massacred, massacring, slaughtered people|villagers|civilians
    car ramming into a crowd, blowing up people|children
  `),
  terms("violent-act", `
    kill, kills, killing, killed, murder, murders, murdering, murdered, stab, stabs, stabbing, stabbed
    strangle, strangles, strangling, strangled, choke, choking, torture, tortures, torturing, tortured
    slaughter, slaughtering, executing, execution, executions, behead, beheads
    set fire to, setting fire to, set on fire, beating, beat up, beating up, punching, lynch
    run over, running over, ran over, attack, attacking, attacked, assault, assaulting, assaulted
    slit the throat of, slitting the throat of, slit|slitting|cut|cutting the|his|her|their throat
  `),
  terms("shoot", "shoot, shoots, shooting, gunning down, gun down, guns down, open fire on, opening fire on, opened fire on, firing at"),
  terms("photography", "photo, photos, photograph, photographer, camera, portrait, portraits, photoshoot, studio, film, movie, headshot, headshots, model, models, fashion"),
  terms("person", `
    person, people, man, men, woman, women, child, children, kid, kids, baby, babies, girl, girls, boy, boys
    family, families, crowd, crowds, student, students, classmates, teacher, teachers, victim, victims, hostage, hostages
    prisoner, prisoners, civilian, civilians, protester, protesters, someone, somebody, him, her, them, wife, husband
    mother, father, mom, dad, brother, sister, neighbor, neighbour, neighbors, neighbours, boss, coworker, coworkers
    police officer|officers, cop, cops, officer, president, politician, senator, pedestrian, pedestrians
    worker, workers, stranger, strangers, homeless man|woman|person|people, villagers, refugee, refugees, toddler, infant, grandma, grandpa
  `),
  terms("blood", "blood, bloody, bloodied, bleeding, bled"),
  terms("injury", "torn apart, ripped apart, blown apart, corpse, corpses, dead, wound, wounds, wounded, gash, gashes, severed, mangled, injured, cadaver, carcass, slit throat, victim, victims, body, bodies"),
  terms("cruelty", "torturing, tortured, torture, abusing, abused, kicking, skinning, skinned, drowning, drowned, burning, hanging, strangling, beating, killing, stabbing"),
  terms("animal", "dog, dogs, puppy, puppies, cat, cats, kitten, kittens, horse, horses, pet, pets, animal, animals, bunny, rabbit"),
  terms("safe", `
    killer whale|whales|bee|bees|app|heels|smile|look|instinct|queen, kill bill, kill switch, killing time, kill time
    shooting star|stars|range|guard|gallery|hoops|baskets|script, photo shoot, shoot|shooting a photo|film|movie|video
    bloody mary|marys|nose, blood moon|orange|oranges|cells|cell|donation|donor|drive|bank|test|type|pressure|sugar|vessels|red
    murder of crows, murder mystery, murder mysteries, dead end|leaves|tree|trees|sea|flowers|battery|centre|center|calm|serious
    beat the heat, beating heart, beat eggs, beating eggs, beats headphones, hanging plants|lamp|lamps|basket|baskets|garden|gardens|out|around|lights|bridge
    hanging out, hang out, hang gliding, hang glider, burning man, burning candle|candles|fire|bush|sun, heartburn
    the hanged man, execution of the plan, flawless execution, attack on titan, heart attack, panic attack
    corpse bride|flower|reviver, dead or alive, day of the dead, grateful dead, cut the cake, cut the ribbon
    cutting the ribbon, cutting the cake, run over the bridge, set fire to the rain, choke hold, chokehold
    slaughterhouse five, killing it, killed it, knock out, drop dead gorgeous
  `),
];
