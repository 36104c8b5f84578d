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
minikern> dtrace -l -m dtrace_probes -n BEGIN
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        dtt     dtrace_probes                         dtt_value value
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
{{ *[0-9]+}}        dtt     dtrace_probes                           dtt_hot hot
    1     dtrace                                                     BEGIN
minikern> dtrace -l -f dtt_t* -f dtrace_probes:dtt_word
   ID   PROVIDER            MODULE                          FUNCTION NAME
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_tick tick
{{ *[0-9]+}}        dtt     dtrace_probes                          dtt_word word
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
