DROP TABLE gateway_authorizations;
