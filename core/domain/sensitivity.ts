import { escapeRegExp } from '../text/regex.js';
import type { Sensitivity } from './types.js';

/**
 * Keyword sensitivity classifier (DESIGN §3): set once when a fact is created.
 * Credentials and identity/account numbers → restricted; health and money →
 * confidential; everything else → internal. `public` is only ever set by an
 * explicit override, never guessed.
 */

// Words are matched on word boundaries, case-insensitively; multi-word entries match as phrases.
const RESTRICTED_TERMS = [
  'password', 'passwords', 'passcode', 'passphrase', 'pin code', 'pin number', 'api key', 'api keys', 'apikey', 'access key',
  'secret key', 'private key', 'ssh key', 'access token', 'auth token', 'api token', 'bearer token', 'refresh token', 'session token',
  'credentials', 'credential', 'login details', 'security code', 'cvv', 'cvc', 'one-time code', '2fa code', 'recovery code',
  'ssn', 'social security', 'social security number', 'passport', 'passport number', "driver's license", 'drivers license',
  'driving licence', 'license number', 'national id', 'id number', 'tax id', 'iban', 'swift code', 'routing number',
  'account number', 'bank account', 'sort code', 'credit card', 'card number', 'debit card number', 'seed phrase', 'mnemonic phrase',
];

const HEALTH_TERMS = [
  'health', 'medical', 'medication', 'medications', 'medicine', 'prescription', 'prescribed', 'diagnosis', 'diagnosed', 'disease',
  'illness', 'symptom', 'symptoms', 'allergy', 'allergies', 'allergic', 'asthma', 'diabetes', 'diabetic', 'cancer',
  'tumor', 'chemo', 'chemotherapy', 'therapy', 'therapist', 'psychiatrist', 'depression', 'depressed', 'anxiety', 'adhd', 'autism',
  'bipolar', 'ptsd', 'hiv', 'aids', 'hepatitis', 'covid', 'pregnant', 'pregnancy', 'miscarriage', 'surgery', 'hospitalized',
  'blood pressure', 'cholesterol', 'insulin', 'migraine',
  'injury', 'injured', 'disability', 'disabled', 'medical condition', 'chronic', 'infection', 'vaccine', 'vaccinated', 'mental health',
  'rehab', 'addiction', 'lungs', 'heart attack', 'stroke', 'arthritis', 'epilepsy', 'dementia', 'alzheimer', "alzheimer's",
];

const FINANCE_TERMS = [
  'salary', 'salaries', 'income', 'wage', 'wages', 'earns', 'earn', 'earning', 'earnings', 'paycheck', 'bonus',
  'debt', 'debts', 'loan', 'loans', 'mortgage', 'owe', 'owes', 'owed', 'bank', 'banking', 'savings', 'investment', 'investments',
  'invested', 'stocks', 'portfolio', 'crypto', 'bitcoin', 'tax', 'taxes', 'budget', 'net worth', 'bankrupt',
  'bankruptcy', 'credit score', 'rent', 'finances', 'financial', 'price', 'cost', 'costs', 'invoice', 'billing', 'payment',
  'payments', 'refund', 'euro', 'euros', 'dollar', 'dollars', 'usd', 'eur', 'gbp', 'pounds sterling',
];

const MONEY_AMOUNT = /(?:[$€£¥]\s?\d)|(?:\d[\d,.]*\s?(?:k|m)?\s?(?:usd|eur|gbp|euros?|dollars?|bucks)\b)/i;
// 13–19 digits, optionally grouped: the shape of a payment card number (Luhn-checked below).
const CARD_NUMBER = /\b\d(?:[ -]?\d){12,18}\b/g;
const IBAN = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/;
const US_SSN = /\b\d{3}-\d{2}-\d{4}\b/;
// Things that look like secrets: sk-..., ghp_..., long base64/hex runs.
const SECRET_SHAPE = /\b(?:sk|pk|ghp|gho|xox[abp]|AKIA)[-_A-Za-z0-9]{12,}\b|\b[A-Fa-f0-9]{32,}\b/;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function hasCardNumber(text: string): boolean {
  for (const m of text.matchAll(CARD_NUMBER)) if (luhnValid(m[0].replace(/\D/g, ''))) return true;
  return false;
}

function buildMatcher(terms: readonly string[]): RegExp {
  const escaped = [...terms].sort((a, b) => b.length - a.length).map((t) => escapeRegExp(t).replace(/ /g, '\\s+'));
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'iu');
}

const RESTRICTED = buildMatcher(RESTRICTED_TERMS);
const HEALTH = buildMatcher(HEALTH_TERMS);
const FINANCE = buildMatcher(FINANCE_TERMS);

export function classifySensitivity(text: string, family?: string): Sensitivity {
  const t = text.normalize('NFKC').replace(/[’‘]/g, "'");
  if (RESTRICTED.test(t) || hasCardNumber(t) || IBAN.test(t) || US_SSN.test(t) || SECRET_SHAPE.test(t)) return 'restricted';
  if (family === 'health' || family === 'financial') return 'confidential';
  if (HEALTH.test(t) || FINANCE.test(t) || MONEY_AMOUNT.test(t)) return 'confidential';
  return 'internal';
}
