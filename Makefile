# `make` builds the release binary; `make EXE=PATH` also copies it to PATH,
# as testing frameworks (OpenBench) expect.
CARGO ?= cargo
EXE ?=

.PHONY: all
all:
	$(CARGO) build --release
ifneq ($(EXE),)
	cp target/release/amalgam $(EXE)
endif
