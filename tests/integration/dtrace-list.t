# dtrace -l lists probes in DTrace's columns (ID PROVIDER MODULE FUNCTION
# NAME); -P, -m, -f and -n select with empty fields and globs; -v adds the
# argument types; a description that matches nothing is an error.
# status: 1
minikern> dtrace -l -n dtrace:::
   ID   PROVIDER            MODULE                          FUNCTION NAME
    1     dtrace                                                     BEGIN
    2     dtrace                                                     END
    3     dtrace                                                     ERROR
minikern> dtrace -l -P dtt
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'dtt:::' matched 0 probes
minikern> kldload dtrace_probes
minikern> dtrace -l -P dtt
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        dtt     dtrace_probes                         dtt_value value
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
{{ *[0-9]+}}        dtt     dtrace_probes                           dtt_hot hot
minikern> # A module's probes of every provider: its function-boundary
minikern> # probes (fbt) too, for each function it has.
minikern> dtrace -l -m dtrace_probes -n BEGIN
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        dtt     dtrace_probes                         dtt_value value
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
{{ *[0-9]+}}        dtt     dtrace_probes                           dtt_hot hot
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_tick entry
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_tick return
{{ *[0-9]+}}        fbt     dtrace_probes                        dtt_thread entry
{{ *[0-9]+}}        fbt     dtrace_probes                        dtt_thread return
{{ *[0-9]+}}        fbt     dtrace_probes                         dtt_value entry
{{ *[0-9]+}}        fbt     dtrace_probes                         dtt_value return
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_word entry
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_word return
{{ *[0-9]+}}        fbt     dtrace_probes                           dtt_hot entry
{{ *[0-9]+}}        fbt     dtrace_probes                           dtt_hot return
{{ *[0-9]+}}        fbt     dtrace_probes                           dtt_cmd entry
{{ *[0-9]+}}        fbt     dtrace_probes                           dtt_cmd return
    1     dtrace                                                     BEGIN
minikern> dtrace -l -f dtt_t* -f dtrace_probes:dtt_word
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_tick entry
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_tick return
{{ *[0-9]+}}        fbt     dtrace_probes                        dtt_thread entry
{{ *[0-9]+}}        fbt     dtrace_probes                        dtt_thread return
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_word entry
{{ *[0-9]+}}        fbt     dtrace_probes                          dtt_word return
minikern> dtrace -l -n 'dtt::dtt_[tv]*:'
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        dtt     dtrace_probes                         dtt_value value
minikern> dtrace -l -n ':dtrace_probes::value' -n tick
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                         dtt_value value
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
minikern> dtrace -lv -n dtt:::tick -n dtrace:::END
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick

	Argument Types
		args[0]: int
		args[1]: char *
		args[2]: long

	Sites
		call: 1

    2     dtrace                                                     END

	Argument Types
		None
minikern> dtrace -l -n nosuch:::
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'nosuch:::' matched 0 probes
minikern> kldunload dtrace_probes
minikern> dtrace -l -P dtt
   ID   PROVIDER            MODULE                          FUNCTION NAME
dtrace: description 'dtt:::' matched 0 probes
