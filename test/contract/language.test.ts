/** Language-processing interface (spec language.md): generate-keywords, qna, nlp_search. */
import {
  BatchKeywordSchema,
  KeywordRequestSchema,
  LanguageErrorSchema,
  QAResponseSchema,
  QNA_MAX_PAGES,
  QnaRequestSchema,
  QnaResponseSchema,
  QueryRequestSchema,
  QueryResponseSchema,
} from '../../src/contract/index.js';
import { UUID, invalid, valid } from './helpers.js';

describe('KeywordRequest (keywords: array of string, required)', () => {
  it('accepts keywords, trimmed', () => {
    expect(valid(KeywordRequestSchema, { keywords: [' erp ', 'crm'] })).toEqual({ keywords: ['erp', 'crm'] });
  });

  it('missing → missing', () => {
    expect(invalid(KeywordRequestSchema, {})).toEqual([{ loc: ['body', 'keywords'], msg: 'Field required', type: 'missing', input: {} }]);
  });

  it('an empty list → too_short', () => {
    expect(invalid(KeywordRequestSchema, { keywords: [] })).toEqual([
      {
        loc: ['body', 'keywords'],
        msg: 'List should have at least 1 item after validation, not 0',
        type: 'too_short',
        input: [],
        ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
      },
    ]);
  });

  it('a bare string → list_type only', () => {
    expect(invalid(KeywordRequestSchema, { keywords: '' })).toEqual([
      { loc: ['body', 'keywords'], msg: 'Input should be a valid list', type: 'list_type', input: '' },
    ]);
  });

  it('a blank keyword → string_too_short', () => {
    expect(invalid(KeywordRequestSchema, { keywords: ['erp', ' '] })).toEqual([
      { loc: ['body', 'keywords', 1], msg: 'String should have at least 1 character', type: 'string_too_short', input: ' ', ctx: { min_length: 1 } },
    ]);
  });

  it('an unknown key → extra_forbidden', () => {
    expect(invalid(KeywordRequestSchema, { keywords: ['erp'], count: 5 })).toEqual([
      { loc: ['body', 'count'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: 5 },
    ]);
  });
});

describe('BatchKeyword (original_keywords, alternative_keywords)', () => {
  it('parses a valid body', () => {
    const body = { original_keywords: ['erp'], alternative_keywords: ['enterprise resource planning', 'sap'] };
    expect(valid(BatchKeywordSchema, body)).toEqual(body);
  });

  it('rejects a missing alternative_keywords', () => {
    expect(invalid(BatchKeywordSchema, { original_keywords: ['erp'] })).toEqual([
      { loc: ['body', 'alternative_keywords'], msg: 'Field required', type: 'missing', input: { original_keywords: ['erp'] } },
    ]);
  });

  it('rejects a non-string keyword', () => {
    expect(invalid(BatchKeywordSchema, { original_keywords: ['erp'], alternative_keywords: [1] })).toEqual([
      { loc: ['body', 'alternative_keywords', 0], msg: 'Input should be a valid string', type: 'string_type', input: 1 },
    ]);
  });
});

describe('QnA request (question, domain required; max_pages default 1)', () => {
  it('defaults max_pages to 1; keeps the page address (path included); trims the question', () => {
    expect(valid(QnaRequestSchema, { question: ' Do they ship to Austria? ', domain: ' https://www.Example.com/contact ' })).toEqual({
      question: 'Do they ship to Austria?',
      domain: 'https://www.Example.com/contact',
      max_pages: 1,
    });
    expect(valid(QnaRequestSchema, { question: 'q', domain: 'example.com' }).domain).toBe('example.com');
  });

  it('an address whose host is not a domain → domain_parsing; a non-web scheme → url_scheme', () => {
    const reason = '"https://localhost/x" has no top-level domain; expected a domain such as example.com';
    expect(invalid(QnaRequestSchema, { question: 'q', domain: 'https://localhost/x' })).toEqual([
      { loc: ['body', 'domain'], msg: reason, type: 'domain_parsing', input: 'https://localhost/x', ctx: { reason } },
    ]);
    expect(invalid(QnaRequestSchema, { question: 'q', domain: 'ftp://example.com/file' })).toEqual([
      {
        loc: ['body', 'domain'],
        msg: '"ftp://example.com/file" is not a web address; use http(s):// or a bare domain',
        type: 'url_scheme',
        input: 'ftp://example.com/file',
        ctx: { expected_schemes: "'http', 'https'" },
      },
    ]);
  });

  it.each([1, 5, QNA_MAX_PAGES])('max_pages %i is accepted', (max_pages) => {
    expect(valid(QnaRequestSchema, { question: 'q', domain: 'a.com', max_pages }).max_pages).toBe(max_pages);
  });

  it('our cap is 10 pages', () => {
    expect(QNA_MAX_PAGES).toBe(10);
  });

  it('max_pages 0 → greater_than_equal', () => {
    expect(invalid(QnaRequestSchema, { question: 'q', domain: 'a.com', max_pages: 0 })).toEqual([
      { loc: ['body', 'max_pages'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
  });

  it('max_pages 11 → less_than_equal', () => {
    expect(invalid(QnaRequestSchema, { question: 'q', domain: 'a.com', max_pages: 11 })).toEqual([
      { loc: ['body', 'max_pages'], msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 11, ctx: { le: 10 } },
    ]);
  });

  it('max_pages 1.5 → int_from_float', () => {
    expect(invalid(QnaRequestSchema, { question: 'q', domain: 'a.com', max_pages: 1.5 })).toEqual([
      { loc: ['body', 'max_pages'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 1.5 },
    ]);
  });

  it('question and domain missing → two missing items', () => {
    expect(invalid(QnaRequestSchema, { max_pages: 2 })).toEqual([
      { loc: ['body', 'question'], msg: 'Field required', type: 'missing', input: { max_pages: 2 } },
      { loc: ['body', 'domain'], msg: 'Field required', type: 'missing', input: { max_pages: 2 } },
    ]);
  });

  it('a blank question → string_too_short', () => {
    expect(invalid(QnaRequestSchema, { question: '  ', domain: 'a.com' })).toEqual([
      { loc: ['body', 'question'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '  ', ctx: { min_length: 1 } },
    ]);
  });

  it('an invalid domain → domain_parsing', () => {
    const reason = '"192.168.0.1" is an IP address; an organization is identified by its domain name';
    expect(invalid(QnaRequestSchema, { question: 'q', domain: '192.168.0.1' })).toEqual([
      { loc: ['body', 'domain'], msg: reason, type: 'domain_parsing', input: '192.168.0.1', ctx: { reason } },
    ]);
  });
});

describe('QnA response: the three forms', () => {
  const answer = {
    answer: '**Yes**, they ship to Austria.',
    sources: ['Shipping', 'FAQ'],
    confidence: 0.9,
    follow_up_questions: ['How long does shipping take?'],
    can_answer: true,
  };

  it('answered: success true, can_answer true, data holds the QAResponse', () => {
    const body = { success: true, can_answer: true, message: 'Answered', data: answer };
    expect(valid(QnaResponseSchema, body)).toEqual(body);
  });

  it('cannot answer: success true, can_answer false, data null', () => {
    const body = { success: true, can_answer: false, message: 'Please ask another question or give more context.', data: null };
    expect(valid(QnaResponseSchema, body)).toEqual(body);
  });

  it('error form: success false, can_answer false, message and error', () => {
    const body = { success: false, can_answer: false, message: 'Scraping failed', error: 'timeout after 30 s' };
    expect(valid(QnaResponseSchema, body)).toEqual(body);
    expect(valid(LanguageErrorSchema, body)).toEqual(body);
  });

  it('an answered body with confidence above 1 is rejected', () => {
    expect(invalid(QnaResponseSchema, { success: true, can_answer: true, message: 'm', data: { ...answer, confidence: 1.5 } })).toEqual([
      { loc: ['body', 'data', 'confidence'], msg: 'Input should be less than or equal to 1', type: 'less_than_equal', input: 1.5, ctx: { le: 1 } },
    ]);
  });

  it('an answered body without message is rejected', () => {
    const body = { success: true, can_answer: true, data: answer };
    expect(invalid(QnaResponseSchema, body)).toEqual([{ loc: ['body', 'message'], msg: 'Field required', type: 'missing', input: body }]);
  });

  it('a body that is not an object matches no form', () => {
    expect(invalid(QnaResponseSchema, 'oops')).toEqual([{ loc: ['body'], msg: 'Invalid input', type: 'union_type', input: 'oops' }]);
  });

  it('the error form without error is rejected by LanguageErrorSchema', () => {
    const body = { success: false, can_answer: false, message: 'm' };
    expect(invalid(LanguageErrorSchema, body)).toEqual([{ loc: ['body', 'error'], msg: 'Field required', type: 'missing', input: body }]);
  });
});

describe('QAResponse fields', () => {
  const qa = { answer: 'a', sources: [], confidence: 0, follow_up_questions: [], can_answer: false };

  it('parses a valid object (confidence 0..1)', () => {
    expect(valid(QAResponseSchema, qa)).toEqual(qa);
    expect(valid(QAResponseSchema, { ...qa, confidence: 1 }).confidence).toBe(1);
  });

  it('rejects a negative confidence', () => {
    expect(invalid(QAResponseSchema, { ...qa, confidence: -0.5 })).toEqual([
      { loc: ['body', 'confidence'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -0.5, ctx: { ge: 0 } },
    ]);
  });

  it('rejects sources as a string', () => {
    expect(invalid(QAResponseSchema, { ...qa, sources: 'FAQ' })).toEqual([
      { loc: ['body', 'sources'], msg: 'Input should be a valid list', type: 'list_type', input: 'FAQ' },
    ]);
  });
});

describe('QueryRequest (user_query, search_id; both required)', () => {
  it('accepts both, trims user_query', () => {
    expect(valid(QueryRequestSchema, { user_query: ' ERP vendors in Bavaria ', search_id: UUID })).toEqual({
      user_query: 'ERP vendors in Bavaria',
      search_id: UUID,
    });
  });

  it('missing fields → missing', () => {
    expect(invalid(QueryRequestSchema, {})).toEqual([
      { loc: ['body', 'user_query'], msg: 'Field required', type: 'missing', input: {} },
      { loc: ['body', 'search_id'], msg: 'Field required', type: 'missing', input: {} },
    ]);
  });

  it('an empty search_id → string_too_short', () => {
    expect(invalid(QueryRequestSchema, { user_query: 'x', search_id: '' })).toEqual([
      { loc: ['body', 'search_id'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
    ]);
  });
});

describe('QueryResponse (payload + metadata)', () => {
  const body = {
    payload: {
      keywords: { must_one: ['erp'], must_all: [], must_not: ['games'] },
      locations: { country: ['Deutschland'], state: ['Bayern'], region: [], district: [], municipality: [] },
      custom_filters: {},
      domains: ['sap.com'],
      excludes: [],
      semantic_input: 'ERP software vendors',
    },
    metadata: {
      search_id: UUID,
      user_query: 'ERP vendors in Bavaria like SAP',
      timestamp: '2025-03-01T12:00:00Z',
      processing_time: 1.42,
      workflow_steps: ['flag_detection', 'location_extraction', 'keyword_generation', 'semantic_input_generation'],
    },
  };

  it('parses a valid body', () => {
    expect(valid(QueryResponseSchema, body)).toEqual(body);
  });

  it('rejects keywords without must_one', () => {
    const keywords = { must_all: [], must_not: [] };
    expect(invalid(QueryResponseSchema, { ...body, payload: { ...body.payload, keywords } })).toEqual([
      { loc: ['body', 'payload', 'keywords', 'must_one'], msg: 'Field required', type: 'missing', input: keywords },
    ]);
  });

  it('rejects a negative processing_time', () => {
    expect(invalid(QueryResponseSchema, { ...body, metadata: { ...body.metadata, processing_time: -1 } })).toEqual([
      { loc: ['body', 'metadata', 'processing_time'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } },
    ]);
  });

  it('rejects locations without municipality', () => {
    const locations = { country: [], state: [], region: [], district: [] };
    expect(invalid(QueryResponseSchema, { ...body, payload: { ...body.payload, locations } })).toEqual([
      { loc: ['body', 'payload', 'locations', 'municipality'], msg: 'Field required', type: 'missing', input: locations },
    ]);
  });
});
