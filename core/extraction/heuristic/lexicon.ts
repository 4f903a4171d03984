/**
 * Word lists the heuristic extractor reasons with. compromise knows parts of
 * speech and common names; these lists add the domain knowledge it lacks:
 * which nouns are roles, relatives, pets, plans, conditions, and which words
 * hedge or emphasize a statement.
 */

const set = (words: string): ReadonlySet<string> => new Set(words.trim().split(/\s*,\s*|\s+/).filter(Boolean));

/** Speaker pronouns ("I/me/my" → the speaker passed with the episode). */
export const SPEAKER_PRONOUNS = set('i me my mine myself');
/** "we" refers to the speaker when it is a subject (our family, our team...). */
export const SPEAKER_PLURAL_SUBJECT = set('we');
/** Third-person pronouns resolved to the last person mentioned. */
export const PERSON_PRONOUNS = set('he him his himself she her hers herself they them their theirs themselves');
export const OTHER_PRONOUNS = set('you your yours yourself yourselves us our ours it its this that these those there here who whom which what someone somebody everyone everybody anyone anybody nobody nothing something everything anything one');

/** Nouns naming a person by role: "the CEO", "our manager". */
export const ROLE_NOUNS = set(
  'ceo cto cfo coo cmo cio ciso vp president founder cofounder co-founder owner director manager boss supervisor lead chair chairman ' +
    'chairwoman chairperson head engineer developer programmer designer architect analyst scientist researcher consultant accountant ' +
    'lawyer attorney doctor nurse physician surgeon dentist therapist pharmacist teacher professor lecturer tutor student intern ' +
    'assistant secretary receptionist clerk cashier barista chef cook baker waiter waitress bartender driver pilot mechanic electrician ' +
    'plumber carpenter artist writer author journalist editor photographer musician singer actor actress dancer coach trainer athlete ' +
    'officer agent broker banker salesperson recruiter administrator admin technician paramedic firefighter soldier veterinarian vet ' +
    'librarian cleaner nanny babysitter freelancer contractor entrepreneur investor partner associate representative rep specialist ' +
    'coordinator executive officer programmer tester marketer streamer youtuber influencer caregiver counselor psychologist psychiatrist',
);

/** Relatives and social relations: "my sister Ana" → the speaker family_of Ana. */
export const RELATION_PREDICATE: Readonly<Record<string, string>> = {
  mother: 'family_of', mom: 'family_of', mum: 'family_of', mommy: 'family_of', father: 'family_of', dad: 'family_of', daddy: 'family_of',
  parents: 'family_of', parent: 'family_of', sister: 'family_of', brother: 'family_of', sibling: 'family_of', son: 'family_of',
  daughter: 'family_of', child: 'family_of', kid: 'family_of', grandma: 'family_of', grandmother: 'family_of', grandpa: 'family_of',
  grandfather: 'family_of', grandson: 'family_of', granddaughter: 'family_of', aunt: 'family_of', uncle: 'family_of', cousin: 'family_of',
  niece: 'family_of', nephew: 'family_of', stepmother: 'family_of', stepfather: 'family_of', stepsister: 'family_of',
  stepbrother: 'family_of', twin: 'family_of', 'mother-in-law': 'family_of', 'father-in-law': 'family_of',
  wife: 'married_to', husband: 'married_to', spouse: 'married_to',
  partner: 'partner_of', boyfriend: 'partner_of', girlfriend: 'partner_of', fiance: 'partner_of', fiancee: 'partner_of', 'fiancé': 'partner_of', 'fiancée': 'partner_of',
  friend: 'friend_of', bestie: 'friend_of', bff: 'friend_of', buddy: 'friend_of', pal: 'friend_of',
  roommate: 'knows', flatmate: 'knows', neighbor: 'knows', neighbour: 'knows', coworker: 'knows', colleague: 'knows',
  classmate: 'knows', teammate: 'knows',
  boss: 'reports_to', manager: 'reports_to', supervisor: 'reports_to',
};

/** Relatives spoken of as one group ("my parents", "our kids", "two kids"): one entity, as a single relative is. */
export const PLURAL_RELATIVES = set('parents kids children siblings grandparents twins');

/** Animals people keep: "my dog Max" → the speaker owns Max. */
export const PET_NOUNS = set('dog puppy cat kitten kitty hamster rabbit bunny parrot bird fish goldfish turtle tortoise snake lizard horse pony guinea-pig ferret gecko chicken');

/** Things people own ("I have a car", "I bought a laptop"): keeps "have" from turning every object into ownership. */
export const POSSESSION_NOUNS = set(
  'car cars truck bike bicycle motorcycle scooter house home apartment flat condo cottage cabin boat laptop computer pc macbook ' +
    'iphone ipad phone smartphone tablet camera console playstation ps5 xbox switch tv television guitar piano drum drums violin ' +
    'keyboard watch ring garden farm business company shop store restaurant account subscription membership ticket tickets ' +
    'headphones earbuds kindle printer drone tent van garage pool',
);

/** Head nouns that make a named phrase a product/plan ("the Aurora plan", "Pro subscription"). */
export const PRODUCT_HEADS = set('plan plans tier subscription package bundle edition license licence app application model version product device membership');
export const PLAN_HEADS = set('plan tier subscription package bundle membership');
export const PROJECT_HEADS = set('project initiative program programme campaign migration rollout');
export const EVENT_HEADS = set(
  'conference summit meetup meeting workshop hackathon festival concert party wedding funeral ceremony graduation tournament ' +
    'championship cup game match race marathon trip vacation holiday expo fair show webinar retreat reunion exam interview',
);
export const ORG_SUFFIXES = set(
  'inc inc. corp corp. corporation co co. ltd ltd. llc plc gmbh ag sa srl spa bv group holdings capital partners ventures labs ' +
    'technologies systems solutions bank university college school institute hospital clinic foundation agency studio studios ' +
    'company associates consulting media networks',
);
export const PLACE_SUFFIXES = set('city town village county state province street avenue road park lake river island islands mountain mountains beach valley coast world bay hills square airport station');

/** Common nouns that name an organization without a proper name ("the hospital", "a startup"). */
export const GENERIC_ORGS = set(
  'hospital clinic school university college company startup firm bank bakery cafe restaurant store shop office factory ' +
    'agency lab laboratory library museum gym hotel airline church warehouse studio',
);

/** Conditions and substances for the health family. */
export const HEALTH_NOUNS = set(
  'asthma diabetes cancer covid flu cold fever migraine migraines arthritis depression anxiety adhd autism ptsd insomnia allergy ' +
    'allergies eczema epilepsy hypertension celiac bronchitis pneumonia concussion injury infection tinnitus scoliosis dementia ' +
    'lupus anemia hepatitis hiv ibs covid-19 coronavirus sinusitis acne psoriasis cough headache headaches backache condition disease disorder',
);
export const MEDICATION_NOUNS = set(
  'medication medications medicine meds pills pill insulin antibiotics antidepressants ibuprofen aspirin paracetamol tylenol ' +
    'advil inhaler vitamins supplements melatonin prozac zoloft adderall metformin',
);

/** Hedges lower a fact's confidence, emphatics raise it. */
export const HEDGES = set('maybe perhaps probably possibly might may guess suppose apparently seemingly likely unsure');
export const HEDGE_PHRASES = ['i think', 'i guess', 'i believe', 'i suppose', 'not sure', "i'm not sure", 'kind of', 'sort of', 'i feel like', 'i heard'];
export const EMPHATICS = set('definitely certainly absolutely surely always undoubtedly clearly totally');
export const EMPHATIC_PHRASES = ['for sure', 'of course', 'no doubt', '100%', 'without a doubt'];

/** Opinion verbs introducing a viewpoint: "I think X is great". */
export const OPINION_VERBS = set('think believe feel reckon guess suppose find consider');

/** Words that end a relation in time ("anymore", "no longer") or negate a verb. */
export const NEGATORS = set('not never no');
export const ENDED_ADVERBS = set('anymore longer');

/** Capitalized sentence openers that are never names. */
export const NOT_NAMES = set(
  'hey hi hello yes yeah yep nope no oh ok okay well so and but or also anyway lol haha hmm um uh wow omg thanks thank please ' +
    'sorry sure great cool nice good bad right what why how when where who which whose whom that this these those there here ' +
    'today tomorrow yesterday tonight now then dear mr mrs ms dr sir madam god jesus lord mom dad mum guys ' +
    // chat spellings of contractions ("Id think", "Im tired") are not names
    'id im ive ill dont cant wont didnt doesnt isnt wasnt thats its whats lets ya u ur idk imo tbh btw omw ty np pls plz gonna wanna',
);

/** Nouns for ways to be contacted: "stop calling her" → avoids phone calls. */
export const CONTACT_GERUNDS: Readonly<Record<string, string>> = {
  calling: 'phone calls', phoning: 'phone calls', ringing: 'phone calls', emailing: 'emails', texting: 'text messages',
  messaging: 'messages', contacting: 'contact', mailing: 'mail', spamming: 'marketing messages',
};
