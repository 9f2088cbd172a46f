# recall-dim.svg and recall-dim.png, written by attnzoo; rerun with `gnuplot recall-dim.gp` in this folder.
$d0 << EOD
64 99.7417 0.0668292
32 99.6417 0.0968918
128 99.6417 0.0674112
EOD
$d1 << EOD
64 0.7875 0.428433
32 32.8854 31.5445
128 0.372917 0.00954703
EOD
$d2 << EOD
64 89.0583 1.7556
32 69.5229 14.7175
128 97.8354 0.197082
EOD
$d3 << EOD
64 99.7521 0.0381881
32 98.9583 0.589005
128 99.7979 0.0260208
EOD
$d4 << EOD
64 0.414583 0.0425429
32 0.402083 0.040665
128 0.41875 0.0615554
EOD
$d5 << EOD
64 99.7271 0.0538855
32 98.9646 0.499622
128 99.7896 0.0626041
EOD
$d6 << EOD
64 80.0562 3.0197
32 55.0042 5.01414
128 85.9792 1.90419
EOD
$d7 << EOD
64 6.61042 0.412752
32 4.88542 0.0252591
128 7.1375 0.303173
EOD
$d8 << EOD
64 25.7646 33.7519
32 4.34167 0.0745647
128 96.1625 1.1744
EOD
$d9 << EOD
64 37.3229 54.2746
32 99.975 0.0380173
128 99.9688 0.0541266
EOD
$d10 << EOD
64 69.9333 0.731713
32 63.5833 2.90564
128 74.3104 0.613021
EOD
$d11 << EOD
64 7.675 1.8767
32 3.99792 0.0691278
128 6.77083 0.216175
EOD
$d12 << EOD
64 7.06042 0.0866777
32 5.55417 0.140637
128 7.02917 0.035539
EOD
$d13 << EOD
64 52.2083 38.5907
32 51.5437 5.55052
128 28.1354 35.9227
EOD
$d14 << EOD
64 99.9896 0.00954703
32 99.8375 0.0634306
128 99.9 0.01875
EOD
$d15 << EOD
64 70.6063 34.5945
32 8.64792 8.02521
128 99.6063 0.0962175
EOD
$d16 << EOD
64 2.18333 0.769774
32 2.64792 2.9974
128 1.36042 0.469971
EOD
$d17 << EOD
64 96.7333 1.04273
32 85.2542 2.80472
128 31.0292 43.282
EOD
$d18 << EOD
64 1.89792 0.110456
32 1.54167 0.128746
128 1.87292 0.431989
EOD
$d19 << EOD
64 6.23958 0.109211
32 4.15833 0.248773
128 7.05 0.139614
EOD

set terminal svg size 900,560 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'recall-dim.svg'
set multiplot layout 1,1 title 'MQAR: test accuracy against model dim'
set logscale x 2
set yrange [0:105]
set xlabel 'model dim'
set key off
set key outside right font ',8'
set title 'T 256, 16 pairs'
plot $d0 using 1:2:3 with yerrorlines title "bigbird", $d1 using 1:2:3 with yerrorlines title "compressed", $d2 using 1:2:3 with yerrorlines title "efficient", $d3 using 1:2:3 with yerrorlines title "flash", $d4 using 1:2:3 with yerrorlines title "fnet", $d5 using 1:2:3 with yerrorlines title "full", $d6 using 1:2:3 with yerrorlines title "global", $d7 using 1:2:3 with yerrorlines title "gmlp", $d8 using 1:2:3 with yerrorlines title "linear", $d9 using 1:2:3 with yerrorlines title "linformer", $d10 using 1:2:3 with yerrorlines title "local", $d11 using 1:2:3 with yerrorlines title "longformer", $d12 using 1:2:3 with yerrorlines title "mixer", $d13 using 1:2:3 with yerrorlines title "performer", $d14 using 1:2:3 with yerrorlines title "reformer", $d15 using 1:2:3 with yerrorlines title "rfa", $d16 using 1:2:3 with yerrorlines title "routing", $d17 using 1:2:3 with yerrorlines title "sinkhorn", $d18 using 1:2:3 with yerrorlines title "strided", $d19 using 1:2:3 with yerrorlines title "synthesizer"
unset multiplot

unset output
set terminal pngcairo size 900,560 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'recall-dim.png'
set multiplot layout 1,1 title 'MQAR: test accuracy against model dim'
set logscale x 2
set yrange [0:105]
set xlabel 'model dim'
set key off
set key outside right font ',8'
set title 'T 256, 16 pairs'
plot $d0 using 1:2:3 with yerrorlines title "bigbird", $d1 using 1:2:3 with yerrorlines title "compressed", $d2 using 1:2:3 with yerrorlines title "efficient", $d3 using 1:2:3 with yerrorlines title "flash", $d4 using 1:2:3 with yerrorlines title "fnet", $d5 using 1:2:3 with yerrorlines title "full", $d6 using 1:2:3 with yerrorlines title "global", $d7 using 1:2:3 with yerrorlines title "gmlp", $d8 using 1:2:3 with yerrorlines title "linear", $d9 using 1:2:3 with yerrorlines title "linformer", $d10 using 1:2:3 with yerrorlines title "local", $d11 using 1:2:3 with yerrorlines title "longformer", $d12 using 1:2:3 with yerrorlines title "mixer", $d13 using 1:2:3 with yerrorlines title "performer", $d14 using 1:2:3 with yerrorlines title "reformer", $d15 using 1:2:3 with yerrorlines title "rfa", $d16 using 1:2:3 with yerrorlines title "routing", $d17 using 1:2:3 with yerrorlines title "sinkhorn", $d18 using 1:2:3 with yerrorlines title "strided", $d19 using 1:2:3 with yerrorlines title "synthesizer"
unset multiplot

unset output
