-- Review workflows: the reconcile schedule looks every minute for open items
-- whose `review:<id>` workflow was never started (Temporal down, or items older
-- than the workflow); this keeps that lookup off a scan of decided items.
CREATE INDEX review_item_unstarted_idx ON review_item (created_at, id) WHERE status = 'open' AND workflow_id IS NULL;
