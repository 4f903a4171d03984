import { Random } from './random.js';

/**
 * A synthetic but realistic memory corpus for load tests: several hundred
 * users, each with a home city, an employer, friends, projects and hobbies,
 * and first-person chat turns about them (meals, trips, meetings, plans,
 * preferences) spread over two years. Entity and fact rows mirror what
 * extraction would produce, so graph and fact reads have real work to do.
 */

const FIRST = `Olivia Liam Emma Noah Ava Elijah Sophia Lucas Mia Mateo Amelia Levi Harper Ezra Evelyn Luca Abigail Asher Emily James
Ella Leo Elizabeth Aiden Camila Oliver Luna Ethan Sofia Henry Avery Jack Mila Daniel Aria Sebastian Scarlett Michael Penelope Owen
Layla Samuel Chloe Wyatt Victoria Benjamin Madison Jackson Eleanor Jacob Grace Alexander Nora Kai Riley Hudson Zoey Carter Hannah
Julian Hazel David Lily Gabriel Ellie Logan Violet Maverick Lillian Isaac Zoe Grayson Stella Theo Aurora Josiah Natalie Wesley
Emilia Isaiah Everly John Leah Waylon Aubrey Anthony Willow Dylan Addison Miles Lucy Eli Audrey Jaxon Bella Joseph Nova Matthew
Brooklyn Samuel Paisley Thomas Savannah Charles Claire Christopher Skylar Joshua Isla Andrew Genesis Lincoln Naomi Jaxson Elena
Ryan Caroline Nathan Eliana Adrian Anna Santiago Maya Giulia Stefan Marco Paola Kevin Elise Fahim Nicolas Vanessa Akib Emi Nebraas`.split(/\s+/);
const LAST = `Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas
Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott
Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Rossi Bianchi Novak Kowalski Khan`.split(/\s+/);
const CITIES = `London Paris Berlin Madrid Rome Lisbon Vienna Prague Warsaw Dublin Amsterdam Brussels Zurich Geneva Munich Milan Turin
Naples Barcelona Valencia Seville Porto Krakow Budapest Athens Istanbul Oslo Stockholm Copenhagen Helsinki Toronto Vancouver Montreal
Boston Chicago Seattle Denver Austin Atlanta Miami Portland Kyoto Osaka Tokyo Seoul Singapore Sydney Melbourne Auckland Cairo Nairobi
Lagos Dubai Mumbai Delhi Bangalore Lima Bogota Santiago Mexico`.split(/\s+/);
const ORGS = `Acme Globex Initech Umbrella Hooli Stark Wayne Wonka Cyberdyne Soylent Tyrell Aperture Massive Dynamic Gringotts Monarch Pied
Piper Vandelay Prestige Oscorp Premex Beacon Northwind Contoso Fabrikam Litware Adventure Tailspin Proseware Lucerne Margie Alpine Blue
Yonder Coho Fourth Coffee Wide World Southridge Trey Humongous Graphic Litware Relecloud Woodgrove Datum Fernhill Bellows Quill Larkspur`
  .split(/\s+/)
  .map((o, i) => (i % 3 === 0 ? `${o} Labs` : i % 3 === 1 ? `${o} Corp` : `${o} Group`));
const ROLES = `engineer designer nurse teacher accountant analyst manager developer architect chef pharmacist lawyer consultant researcher
writer editor photographer electrician mechanic recruiter`.split(/\s+/);
const FOODS = `pizza sushi ramen tacos lasagna curry paella dumplings pho burgers falafel risotto bibimbap gnocchi shakshuka pad-thai
croissants pancakes steak salmon kebab biryani poke gelato tiramisu`
  .split(/\s+/)
  .map((f) => f.replace('-', ' '));
const HOBBIES = `hiking climbing running cycling swimming painting pottery gardening knitting chess photography surfing skiing yoga
baking woodworking birdwatching kayaking tennis guitar piano singing dancing fishing camping reading`.split(/\s+/);
const PROJECTS = `Aurora Phoenix Atlas Orion Nimbus Falcon Horizon Apollo Zephyr Titan Mercury Gemini Nova Vega Lynx Hydra Comet Polaris
Sierra Delta`.split(/\s+/).map((p) => `${p} project`);
const PRODUCTS = `iPhone Pixel Kindle Spotify Netflix Notion Slack Figma Tesla Vespa Peloton Fitbit Garmin Sonos Roomba Lego Nintendo
Switch PlayStation Xbox`.split(/\s+/);
const RELATIONS = ['sister', 'brother', 'cousin', 'friend', 'colleague', 'neighbor', 'boss', 'roommate', 'mentor', 'partner'];
const TIMES = ['last weekend', 'yesterday', 'this morning', 'last week', 'two weeks ago', 'last month', 'on Friday', 'on Sunday', 'over the holidays', 'last summer'];
const FEELINGS = ['amazing', 'a bit disappointing', 'way too expensive', 'surprisingly good', 'exhausting but fun', 'really relaxing', 'chaotic', 'worth it'];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const DOCS = ['slides', 'budget sheet', 'roadmap', 'design doc', 'contract', 'invoice', 'quarterly report', 'test plan'];

export interface CorpusEntity {
  key: string;
  userIndex: number;
  name: string;
  type: 'person' | 'organization' | 'place' | 'project' | 'product' | 'concept';
  isUser: boolean;
}

export interface CorpusEpisode {
  userIndex: number;
  content: string;
  occurredAt: Date;
  /** Keys of the entities it mentions (the user always). */
  mentions: string[];
}

export interface CorpusFact {
  userIndex: number;
  subject: string;
  predicate: string;
  family: string;
  object: string | null;
  value: string | null;
  text: string;
  decayClass: 'permanent' | 'slow_decay' | 'fast_decay';
  /** Index into episodes, when the fact came from one turn. */
  episode: number | null;
  validFrom: Date | null;
}

export interface CorpusUser {
  id: string;
  name: string;
  city: string;
  employer: string;
  role: string;
  friends: string[];
  places: string[];
  projects: string[];
  hobbies: string[];
  foods: string[];
}

export interface Corpus {
  users: CorpusUser[];
  entities: CorpusEntity[];
  episodes: CorpusEpisode[];
  facts: CorpusFact[];
}

const START = Date.UTC(2024, 5, 1);
const SPAN_MS = 730 * 86_400_000;

export function generateCorpus(episodeCount: number, userCount: number, seed = 42): Corpus {
  const r = new Random(seed);
  const users: CorpusUser[] = [];
  const entities: CorpusEntity[] = [];
  const facts: CorpusFact[] = [];
  const entityKeys = new Set<string>();
  for (let u = 0; u < userCount; u++) {
    const user: CorpusUser = {
      id: `user-${String(u).padStart(4, '0')}`,
      name: `${r.pick(FIRST)} ${r.pick(LAST)}`,
      city: r.pick(CITIES),
      employer: r.pick(ORGS),
      role: r.pick(ROLES),
      friends: [...new Set(Array.from({ length: 6 }, () => r.pick(FIRST)))],
      places: r.sample(CITIES, 4),
      projects: r.sample(PROJECTS, 2),
      hobbies: r.sample(HOBBIES, 3),
      foods: r.sample(FOODS, 3),
    };
    users.push(user);
    const add = (name: string, type: CorpusEntity['type'], isUser = false) => {
      const key = `${u}:${type}:${name}`;
      if (!entityKeys.has(key)) {
        entityKeys.add(key);
        entities.push({ key, userIndex: u, name, type, isUser });
      }
      return key;
    };
    const self = add(user.name, 'person', true);
    const fact = (f: Omit<CorpusFact, 'userIndex' | 'subject' | 'episode' | 'validFrom'> & { episode?: number; validFrom?: Date }) =>
      facts.push({ userIndex: u, subject: self, episode: null, validFrom: null, ...f });
    const city = add(user.city, 'place');
    fact({ predicate: 'lives_in', family: 'places', object: city, value: null, text: `${user.name} lives in ${user.city}.`, decayClass: 'slow_decay' });
    const org = add(user.employer, 'organization');
    fact({ predicate: 'works_at', family: 'work', object: org, value: null, text: `${user.name} works at ${user.employer}.`, decayClass: 'slow_decay' });
    fact({ predicate: 'has_role', family: 'work', object: null, value: user.role, text: `${user.name} works as a ${user.role}.`, decayClass: 'slow_decay' });
    for (const friend of user.friends) {
      const f = add(friend, 'person');
      fact({ predicate: 'knows', family: 'people', object: f, value: null, text: `${user.name} knows ${friend}.`, decayClass: 'slow_decay' });
    }
    for (const p of user.projects) {
      const e = add(p, 'project');
      fact({ predicate: 'works_on', family: 'work', object: e, value: null, text: `${user.name} works on the ${p}.`, decayClass: 'fast_decay' });
    }
    for (const h of user.hobbies) fact({ predicate: 'likes', family: 'preferences', object: null, value: h, text: `${user.name} likes ${h}.`, decayClass: 'fast_decay' });
    for (const food of user.foods) fact({ predicate: 'likes', family: 'preferences', object: null, value: food, text: `${user.name} likes ${food}.`, decayClass: 'fast_decay' });
    for (const p of user.places) add(p, 'place');
  }

  const episodes: CorpusEpisode[] = [];
  for (let i = 0; i < episodeCount; i++) {
    const u = i % userCount;
    const user = users[u];
    const self = `${u}:person:${user.name}`;
    const friend = r.skewed(user.friends);
    const place = r.skewed(user.places);
    const project = r.pick(user.projects);
    const hobby = r.skewed(user.hobbies);
    const food = r.skewed([...user.foods, ...FOODS]);
    const when = r.pick(TIMES);
    const feeling = r.pick(FEELINGS);
    const kind = r.int(12);
    let content: string;
    let mentions = [self];
    let derived: Omit<CorpusFact, 'userIndex' | 'subject' | 'episode' | 'validFrom'> | null = null;
    switch (kind) {
      case 0:
        content = `I went ${hobby} near ${place} with ${friend} ${when}. It was ${feeling}.`;
        mentions.push(`${u}:place:${place}`, `${u}:person:${friend}`);
        derived = { predicate: 'visited', family: 'places', object: `${u}:place:${place}`, value: null, text: `${user.name} visited ${place}.`, decayClass: 'slow_decay' };
        break;
      case 1:
        content = `We had ${food} for dinner ${when} and honestly it was ${feeling}. ${friend} picked the place.`;
        mentions.push(`${u}:person:${friend}`);
        break;
      case 2:
        content = `The ${project} review moved to ${r.pick(WEEKDAYS)}; ${friend} will bring the ${r.pick(DOCS)}.`;
        mentions.push(`${u}:project:${project}`, `${u}:person:${friend}`);
        break;
      case 3:
        content = `My ${r.pick(RELATIONS)} ${friend} just started at ${r.pick(ORGS)} as a ${r.pick(ROLES)}.`;
        mentions.push(`${u}:person:${friend}`);
        break;
      case 4:
        content = `Remind me to call ${friend} about the ${project} before ${r.pick(WEEKDAYS)}.`;
        mentions.push(`${u}:person:${friend}`, `${u}:project:${project}`);
        break;
      case 5:
        content = `I've been doing a lot of ${hobby} lately, mostly on ${r.pick(WEEKDAYS)}s after work at ${user.employer}.`;
        mentions.push(`${u}:organization:${user.employer}`);
        break;
      case 6:
        content = `Thinking about switching from ${r.pick(PRODUCTS)} to ${r.pick(PRODUCTS)}; ${friend} says it is ${feeling}.`;
        mentions.push(`${u}:person:${friend}`);
        break;
      case 7:
        content = `Booked a trip to ${place} for ${r.pick(['March', 'April', 'May', 'June', 'September', 'October'])}, ${friend} might join if work allows.`;
        mentions.push(`${u}:place:${place}`, `${u}:person:${friend}`);
        derived = { predicate: 'travels_to', family: 'places', object: `${u}:place:${place}`, value: null, text: `${user.name} plans to travel to ${place}.`, decayClass: 'fast_decay' };
        break;
      case 8:
        content = `Work at ${user.employer} is ${feeling} this month, the ${project} deadline keeps slipping and my manager wants the ${r.pick(DOCS)} early.`;
        mentions.push(`${u}:organization:${user.employer}`, `${u}:project:${project}`);
        break;
      case 9:
        content = `I'm trying to eat less ${food}; my doctor suggested more ${r.pick(FOODS)} and ${r.pick(HOBBIES)} instead.`;
        derived = { predicate: 'avoids', family: 'health', object: null, value: food, text: `${user.name} is trying to eat less ${food}.`, decayClass: 'fast_decay' };
        break;
      case 10:
        content = `${friend} recommended a podcast about ${r.pick(HOBBIES)} and ${r.pick(HOBBIES)}, I listened to it on the way back from ${place}.`;
        mentions.push(`${u}:person:${friend}`, `${u}:place:${place}`);
        break;
      default:
        content = `Back home in ${user.city} ${when}. The weather was ${r.pick(['rainy', 'sunny', 'freezing', 'humid', 'windy'])} so I stayed in with ${r.pick(['a book', 'the kids', 'a movie', 'my guitar', 'some old photos'])}.`;
        mentions.push(`${u}:place:${user.city}`);
    }
    mentions = [...new Set(mentions)].filter((key) => entityKeys.has(key));
    const occurredAt = new Date(START + r.next() * SPAN_MS);
    episodes.push({ userIndex: u, content, occurredAt, mentions });
    if (derived && r.next() < 0.8) facts.push({ userIndex: u, subject: self, episode: i, validFrom: occurredAt, ...derived });
  }
  return { users, entities, episodes, facts };
}

/** Agent-like questions about one user, from the same vocabulary. */
export function benchQuery(r: Random, user: CorpusUser): string {
  switch (r.int(8)) {
    case 0:
      return `What does ${user.name} like to eat?`;
    case 1:
      return `When is the ${r.pick(user.projects)} review and who brings the slides?`;
    case 2:
      return `Where did I go ${r.pick(HOBBIES)} with ${r.pick(user.friends)}?`;
    case 3:
      return `What happened with ${r.pick(user.friends)} last month?`;
    case 4:
      return `Any trips planned to ${r.pick(user.places)}?`;
    case 5:
      return `How is work at ${user.employer} going?`;
    case 6:
      return `What did the doctor say about ${r.pick(FOODS)}?`;
    default:
      return `${r.pick(HOBBIES)} plans in ${r.pick(['March', 'June', '2025', 'September'])}`;
  }
}

/**
 * Questions the way agents ask them (issue 23's findings): about a person by name, naming two entities at once,
 * about a period, with names that are no dictionary word (the corpus's employers: Initech, Cyberdyne, Proseware …, and rare
 * first names), sent with a user scope or namespace-wide.
 */
export function agentQuery(r: Random, user: CorpusUser): string {
  const first = user.name.split(' ')[0];
  switch (r.int(7)) {
    case 0:
      return `where does ${user.name} work`;
    case 1:
      return `Who does ${first} know at ${user.employer}?`;
    case 2:
      return `What did ${user.name} and ${r.pick(user.friends)} do together?`;
    case 3:
      return `${user.employer} ${r.pick(user.projects)} status`;
    case 4:
      return `Has ${first} been to ${r.pick(user.places)} with ${r.pick(user.friends)}?`;
    case 6:
      // A time window, asked about a company rather than a person: namespace-wide it spans everyone's facts.
      return `what happened at ${user.employer} last month`;
    default:
      return `what does ${user.name} do at ${user.employer}`;
  }
}
