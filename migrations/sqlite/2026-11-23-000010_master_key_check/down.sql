DROP TABLE master_key_check;
