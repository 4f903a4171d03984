import { simpleParser, type AddressObject, type EmailAddress } from 'mailparser';
import type { EntityCandidate } from '../extraction/types.js';
import { tripleText, type SourceDocument, type SourcedFact } from './document.js';
import { authoredBody } from './emailBody.js';
import { isPublicMailDomain, organizationNameOf } from './publicMailDomains.js';

export interface Participant {
  address: string;
  /** Display names it was written with ("Alice Martin"), first one first. */
  names: string[];
}

export interface ParsedEmail {
  sender: Participant | null;
  /** To and CC (and Bcc when present), the sender excluded, one per address. */
  recipients: Participant[];
  date: Date | null;
  /** The Date header's UTC offset ("+01:00"): the sender's clock, for relative dates in the body. */
  dateOffset: string | null;
  subject: string | null;
  messageId: string | null;
  /** The text this message's sender wrote: quoted replies and signature cut. */
  body: string;
}

/** Participants read from one message (a mailing list's thousand recipients are not contacts). */
export const MAX_EMAIL_PARTICIPANTS = 100;

/** Body text read at most: as much as a text memory may hold (the rest of a long message is usually quoted history). */
const MAX_BODY_CHARS = 100_000;

/** Confidence of a `works_at` inferred from an address's domain (a guess, below a stated fact's). */
const INFERRED_EMPLOYER_CONFIDENCE = 0.6;

function addressesOf(header: AddressObject | AddressObject[] | undefined): EmailAddress[] {
  const objects = header === undefined ? [] : Array.isArray(header) ? header : [header];
  // Groups ("Team: a@x, b@y;") hold their members in `group`.
  return objects.flatMap((o) => o.value).flatMap((a) => (a.group ? a.group : [a]));
}

function collect(into: Map<string, Participant>, addresses: EmailAddress[]): void {
  for (const a of addresses) {
    const address = a.address?.trim().toLowerCase();
    if (!address || !address.includes('@')) continue;
    const name = a.name?.trim().replace(/^["']|["']$/g, '') ?? '';
    const p = into.get(address) ?? { address, names: [] };
    if (name && name.toLowerCase() !== address && !p.names.includes(name)) p.names.push(name);
    into.set(address, p);
  }
}

/** Parses a raw RFC 822 message (mailparser: encodings, multipart, HTML-only bodies). */
export async function parseEmail(raw: string): Promise<ParsedEmail> {
  const mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true });
  const senders = new Map<string, Participant>();
  collect(senders, addressesOf(mail.from));
  const sender = [...senders.values()][0] ?? null;
  const recipients = new Map<string, Participant>();
  collect(recipients, [...addressesOf(mail.to), ...addressesOf(mail.cc), ...addressesOf(mail.bcc)]);
  if (sender) recipients.delete(sender.address);
  const date = mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null;
  const offset = /([+-])(\d{2})(\d{2})\s*(?:\([^)]*\))?\s*$/.exec(mail.headerLines.find((h) => h.key === 'date')?.line ?? '');
  return {
    sender,
    recipients: [...recipients.values()],
    date,
    dateOffset: offset ? `${offset[1]}${offset[2]}:${offset[3]}` : null,
    subject: mail.subject?.trim() || null,
    messageId: mail.messageId ?? null,
    body: authoredBody(mail.text ?? '').slice(0, MAX_BODY_CHARS),
  };
}

/** When the message was sent, as an ISO instant on the sender's clock ("2026-03-02T09:14:00.000+01:00"). */
export function sentAt(mail: ParsedEmail): string | null {
  if (!mail.date) return null;
  const offset = mail.dateOffset ?? '+00:00';
  const minutes = (offset[0] === '-' ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));
  const wall = new Date(mail.date.getTime() + minutes * 60_000).toISOString().slice(0, -1);
  return `${wall}${offset}`;
}

/** The name a participant's person entity takes: their display name, else the address. */
export function participantName(p: Participant): string {
  return p.names[0] ?? p.address;
}

/**
 * What an email states by its headers: one person per address (the address
 * and display names as aliases), the organization of each non-public mail
 * domain with `works_at`; and its body as prose whose "I" is the sender.
 */
export function emailDocument(mail: ParsedEmail): SourceDocument {
  const participants = [...(mail.sender ? [mail.sender] : []), ...mail.recipients].slice(0, MAX_EMAIL_PARTICIPANTS);
  const entities: EntityCandidate[] = [];
  const facts: SourcedFact[] = [];
  const organizations = new Map<string, EntityCandidate>();
  for (const p of participants) {
    const name = participantName(p);
    entities.push({ name, type: 'person', aliases: [...new Set([p.address, ...p.names])].filter((a) => a !== name) });
    const domain = p.address.split('@')[1];
    if (!domain || isPublicMailDomain(domain)) continue;
    const org = organizations.get(domain) ?? { name: organizationNameOf(domain), type: 'organization' as const, aliases: [domain] };
    organizations.set(domain, org);
    facts.push({
      subject: name,
      predicate: 'works_at',
      predicate_raw: 'works at',
      family: 'work',
      object: org.name,
      value: null,
      fact_text: tripleText(name, 'works at', org.name),
      memory_kind: 'semantic',
      importance: 0.5,
      confidence: INFERRED_EMPLOYER_CONFIDENCE,
      negated: false,
      time_expression: null,
    });
  }
  entities.push(...organizations.values());
  return { entities, facts, text: mail.body, speaker: mail.sender ? participantName(mail.sender) : null };
}
