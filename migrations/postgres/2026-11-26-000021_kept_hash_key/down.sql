DELETE FROM master_key_check WHERE id = 2;
ALTER TABLE master_key_check DROP CONSTRAINT master_key_check_id_check;
ALTER TABLE master_key_check ADD CONSTRAINT master_key_check_id_check CHECK (id = 1);
