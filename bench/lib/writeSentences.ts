/** The short statements the write-path benchmarks store (bench:write, bench:drain): one of each kind the heuristic extracts. */
export const WRITE_SENTENCES = [
  'Maya moved to Lisbon last spring and works at Northwind as a designer.',
  'The team decided to ship the Orion release on Friday.',
  'Carlos prefers short status updates by email.',
  'I finally tried the new ramen place near the office and loved it.',
  'Our Pro plan costs 30 dollars per month since January.',
];
