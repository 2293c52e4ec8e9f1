DROP TABLE rails_changes;
DROP TABLE rails;
