import { expectedAnswerTypes } from '../core/retrieval/answerType.js';

describe('expected answer types (pure)', () => {
  it.each([
    // Where someone works or studies is an employer or a school.
    ['Where does Vanessa work?', ['organization']],
    ["Where does Ana's brother study?", ['organization']],
    ['Where did Kevin intern last summer?', ['organization']],
    ['Where does Vanessa live?', ['place', 'organization']],
    // The verb is too far from "where" to be what it asks about.
    ['Where did Elise go after the long day she spent at work?', ['place', 'organization']],
    ['Where, besides the United States, has Elise visited?', ['place', 'organization']],
    ['What countries has Kate visited?', ['place']],
    ['In which city does Elise live?', ['place']],
    ['Which famous places in Houston does Elise mention?', ['place']],
    ['What kind of companies did Kevin intern at?', ['organization']],
    ['Which university does Kevin attend?', ['organization']],
    ['Who does Emi meet once a month?', ['person']],
    ['Whose birthday is in May?', ['person']],
    ['What famous people are Nicolas and Nebraas discussing?', ['person']],
  ])('%s → %j', (query, types) => {
    expect(expectedAnswerTypes(query)).toEqual(types);
  });

  it.each([
    'When did Kevin visit Greece?',
    'Why did Paola move to a new city?',
    'How long was Akib in Japan?',
    'What does Kevin like to cook?',
    // The head noun is too far from "what" to be the thing asked for.
    'What did Kevin say to his friends about the cities?',
    'Kevin trip to Lisbon',
    '',
  ])('%j asks for no entity type', (query) => {
    expect(expectedAnswerTypes(query)).toEqual([]);
  });
});
