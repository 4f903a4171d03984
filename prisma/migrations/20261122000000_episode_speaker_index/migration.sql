-- The read path's graph signal matches episodes by who said them ("what did Emi say…").
CREATE INDEX episode_speaker_idx ON episode (namespace, lower(speaker));
