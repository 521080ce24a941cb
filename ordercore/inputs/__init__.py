"""What people hand the library, read and checked in words: text and JSON files (``text_files``),
CSVs whose floats read back exactly (``csv_floats``), typed names (``printable``) and the estimators'
``fit`` inputs (``fit_inputs``)."""
