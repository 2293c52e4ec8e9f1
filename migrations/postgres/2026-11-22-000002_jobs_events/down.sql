DROP TABLE test_clocks;
DROP TABLE event_deliveries;
DROP TABLE events;
DROP TABLE jobs;
