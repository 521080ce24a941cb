"""What people hand the library, read and checked in words: text and JSON files (``text_files``),
CSVs whose floats read back exactly (``csv_floats``), typed names (``printable``), the estimators'
``fit`` inputs (``fit_inputs``), whole numbers such as seeds and row numbers (``counts``) and a preference
file's cells (``preference_cells``)."""
