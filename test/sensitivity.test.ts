import { classifySensitivity } from '../core/domain/sensitivity.js';

describe('classifySensitivity', () => {
  it.each([
    ['My password is hunter2'],
    ['The API key for staging is in the vault'],
    ['here is my access token, use it for the deploy'],
    ['Her SSN is 078-05-1120'],
    ['His social security number ends in 42'],
    ['Passport number X1234567'],
    ['Send it to IBAN DE89 3704 0044 0532 0130 00'],
    ['card 4111 1111 1111 1111 exp 12/28'],
    ['The account number is 12345678'],
    ['key sk-abcdefghijklmnopqrstuvwx'],
    ['my credit card got declined'],
  ])('credentials and identifiers are restricted: %s', (text) => {
    expect(classifySensitivity(text)).toBe('restricted');
  });

  it.each([
    ['Giulia has asthma'],
    ['He was diagnosed with diabetes last year'],
    ['She takes medication for anxiety'],
    ['I am allergic to peanuts'],
    ['My therapist moved offices'],
    ['Stefan earns 5000 dollars a month'],
    ['The Aurora plan costs €40 per month'],
    ['She has a mortgage and some student loans'],
    ['His salary went up'],
  ])('health and money are confidential: %s', (text) => {
    expect(classifySensitivity(text)).toBe('confidential');
  });

  it('the family decides even without keywords', () => {
    expect(classifySensitivity('Giulia has a condition', 'health')).toBe('confidential');
    expect(classifySensitivity('Aurora plan is pricey', 'financial')).toBe('confidential');
  });

  it.each([
    ['Stefan works at Premex.'],
    ['Giulia prefers email follow-ups.'],
    ['The CEO lives in Kitchener.'],
    ['I work as a nurse at the hospital'],
    ['I love hiking with my dog Max'],
    ['Call me at 5 tomorrow'],
    ['The order number is 2024'],
  ])('everything else is internal: %s', (text) => {
    expect(classifySensitivity(text, 'work')).toBe('internal');
  });

  it('restricted beats confidential, and public is never guessed', () => {
    expect(classifySensitivity('my bank password is 1234', 'financial')).toBe('restricted');
    expect(classifySensitivity('The sky is blue', 'other')).toBe('internal');
  });

  it('does not mistake ordinary numbers for card numbers', () => {
    // 16 digits that fail the Luhn check.
    expect(classifySensitivity('tracking 1234 5678 9012 3456')).toBe('internal');
  });

  it('matches whole words only', () => {
    expect(classifySensitivity('The passage was cold')).toBe('internal'); // not "pass..."
    expect(classifySensitivity('Tokenization is fun')).toBe('internal'); // not "token"
  });
});
