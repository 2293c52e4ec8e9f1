DROP INDEX accounts_one_demo;
