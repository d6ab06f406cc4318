-- A business's scheduled timers by due time: the test clock's advance claims them one at a time
-- (TimerStore.claimDue with a business) and looks for the ones still due (dueTimers), and the
-- (status, due_at) index alone ranges over every business's scheduled timers for that.
CREATE INDEX timers_scheduled_of_business ON timers (business_id, due_at, id) WHERE status = 'scheduled';
