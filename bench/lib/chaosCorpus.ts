// What a chaos or soak run writes: statements about people whose attributes
// never change (one employer, one city, one role each), so the graph a run
// ends with does not depend on the order episodes were extracted in. Repeats
// are frequent on purpose: a repeated statement must confirm its fact, never
// add a second one.

const FIRST = ['Maya', 'Carlos', 'Olivia', 'Noah', 'Sofia', 'Liam', 'Amelia', 'Lucas', 'Harper', 'Ethan', 'Chloe', 'Mateo', 'Nora', 'Oliver', 'Elena', 'Samuel'];
const LAST = ['Lindqvist', 'Moreau', 'Okafor', 'Tanaka', 'Kowalski', 'Rossi', 'Haddad', 'Novak', 'Fischer', 'Alvarez'];
const ORGS = ['Northwind', 'Globex', 'Initech', 'Contoso', 'Fabrikam', 'Umbrella', 'Tailspin', 'Litware'];
const CITIES = ['Lisbon', 'Berlin', 'Oslo', 'Madrid', 'Vienna', 'Dublin', 'Prague', 'Warsaw', 'Kyoto', 'Toronto', 'Seattle'];
const ROLES = ['designer', 'engineer', 'teacher', 'nurse', 'accountant', 'architect', 'chef', 'lawyer'];
const FOODS = ['ramen', 'sushi', 'tacos', 'paella', 'dumplings', 'risotto', 'falafel'];

export interface ChaosPerson {
  name: string;
  org: string;
  city: string;
  role: string;
  food: string;
}

/** The n-th person (deterministic). */
export function person(n: number): ChaosPerson {
  return {
    name: `${FIRST[n % FIRST.length]} ${LAST[Math.floor(n / FIRST.length) % LAST.length]}`,
    org: ORGS[(n * 3) % ORGS.length],
    city: CITIES[(n * 5) % CITIES.length],
    role: ROLES[(n * 7) % ROLES.length],
    food: FOODS[(n * 11) % FOODS.length],
  };
}

export interface ChaosWrite {
  namespace: string;
  user_id: string;
  content: string;
}

/** A small multiplicative hash: spreads consecutive writes over people and statements. */
function mix(n: number): number {
  return Math.imul(n + 0x9e3779b9, 0x85ebca6b) >>> 0;
}

/** The n-th write: one statement about one of `people` people of one of `namespaces` namespaces. */
export function chaosWrite(n: number, namespaces: number, people = 40): ChaosWrite {
  const h = mix(n);
  const p = person(h % people);
  const statements = [
    `${p.name} works at ${p.org} as a ${p.role}.`,
    `${p.name} lives in ${p.city}.`,
    `${p.name} loves ${p.food}.`,
    `I had lunch with ${p.name} last week.`,
  ];
  return {
    namespace: `chaos-${n % namespaces}`,
    user_id: `user-${(h >>> 8) % 5}`,
    content: statements[(h >>> 4) % statements.length],
  };
}
