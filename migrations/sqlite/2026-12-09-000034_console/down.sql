DROP TABLE dashboard_audit;
DROP TABLE dashboard_sessions;
DROP TABLE dashboard_users;
