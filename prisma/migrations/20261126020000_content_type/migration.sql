-- Sources (issue 20): what an episode's content is. `text` (the default, every
-- episode stored before this migration) goes through the extraction model as
-- it is; `email` is a raw RFC 822 message, `calendar_event` an iCalendar VEVENT
-- or its JSON shape, `json` typed triples (a bulk path with no model). The
-- worker picks the extraction provider of the episode's type (core/sources).
ALTER TABLE episode ADD COLUMN IF NOT EXISTS content_type TEXT NOT NULL DEFAULT 'text';

ALTER TABLE episode DROP CONSTRAINT IF EXISTS episode_content_type_check;
ALTER TABLE episode ADD CONSTRAINT episode_content_type_check
  CHECK (content_type IN ('text', 'email', 'calendar_event', 'json'));
