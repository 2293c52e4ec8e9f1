DROP TABLE three_ds_challenges;
