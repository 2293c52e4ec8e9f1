#!/usr/bin/env python3
"""Builds mcc.csv: each merchant category code with its description (the
transaction_category of enrichment) and its ISO 18245 range (the
transaction_group).

Source (downloaded from PyPI by this script, see SOURCES.md): `iso18245`
1.4.1 (MIT): the ISO 18245 official list and ranges, completed with the
Mastercard list for the codes the official list leaves out (airlines,
car rental and hotel chains in the 3000-3999 private range, ...).

    python3 make_mcc.py > mcc.csv
"""
import csv
import io
import sys

from pypi import wheel


def rows(whl, name):
    return list(csv.reader(io.TextIOWrapper(whl.open(f"iso18245/data/{name}"), encoding="utf-8")))[1:]


whl = wheel("iso18245", "1.4.1")
descriptions = {code: text for code, text, *_ in rows(whl, "mastercard_list.csv")}
descriptions.update({code: text for code, text in rows(whl, "iso18245_official_list.csv")})
# The private range holds the brand codes of three industries; name them.
ranges = [(3000, 3350, "Transportation"), (3351, 3500, "Car rental"), (3501, 3999, "Lodging")]
ranges += [(int(start), int(end), text) for start, end, text in rows(whl, "iso18245_ranges.csv")]
out = csv.writer(sys.stdout, delimiter=";", lineterminator="\n")
for code in sorted(descriptions):
    group = next(text for start, end, text in ranges if start <= int(code) <= end)
    out.writerow([code, descriptions[code].replace(";", ","), group])
