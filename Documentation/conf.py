# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Sphinx configuration, for an HTML copy of Documentation/:
#   sphinx-build Documentation build/html
# The documents are plain reStructuredText and read as they are without it.
project = "kiw"
root_doc = "index"
master_doc = "index"
exclude_patterns = ["conformance-rows.txt"]
