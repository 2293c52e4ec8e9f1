-- The token of the claim that holds a running job: only its holder may
-- extend, finish or hand back the job, so a runner whose lease ran out
-- (its jobs claimed again by another) changes nothing.
ALTER TABLE jobs ADD COLUMN lease TEXT;
