# chart.svg and chart.png, written by attnzoo; rerun with `gnuplot chart.gp` in this folder.
$f0 << EOD
"full (a)" 0.4228 72.0322 7 0.30217
"flash (a)" 1.0498 71.9118 1.37625 0.237252
EOD
$f1 << EOD
"bigbird (a)" 3.2823 72.2836 2.02453 0.339627
"global" 10.6246 63.2048 1.37737 0
"local (bc)" 6.6331 60.8539 1.54717 3.87556
"longformer" 6.0202 55.216 1.57035 0
"strided (ce)" 7.3174 51.711 1.45393 0.32899
EOD
$f2 << EOD
"compressed" 2.1489 52.2711 1.42402 0
"efficient" 12.379 66.7411 1.3543 0
"linear (d)" 8.3155 47.7804 1.36165 0.328509
"linformer (abcde)" 3.836 59.5569 1.66584 10.8726
"performer (ce)" 5.9607 53.0076 1.62235 0.375386
"rfa (d)" 4.2156 48.2442 1.97844 0.361183
"synthesizer" 0.5074 49.7279 1.39291 0
EOD
$f3 << EOD
"fnet (de)" 19.1207 49.0291 1.10067 0.474773
"gmlp" 0.796 52.4819 3.2061 0
"mixer (ce)" 16.6036 52.6764 1.13573 0.230609
EOD
$f4 << EOD
"reformer (b)" 2.5903 66.2309 1.7434 0.481799
"routing (ce)" 3.5943 52.204 1.42833 0.352373
"sinkhorn (ce)" 5.8349 55.4776 1.63932 2.77999
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart.svg'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4228,72.0322 center offset char 0,2.31429 front
set label 2 "bigbird (a)" at 3.2823,72.2836 center offset char 0,1.17703 front
set label 3 "compressed" at 2.1489,52.2711 center offset char 0,1.03978 front
set label 4 "efficient" at 12.379,66.7411 center offset char 0,1.02384 front
set label 5 "flash (a)" at 1.0498,71.9118 center offset char 0,1.02886 front
set label 6 "fnet (de)" at 19.1207,49.0291 center offset char 0,0.965867 front
set label 7 "global" at 10.6246,63.2048 center offset char 0,1.02911 front
set label 8 "gmlp" at 0.796,52.4819 center offset char 0,1.44711 front
set label 9 "linear (d)" at 8.3155,47.7804 center offset char 0,1.02552 front
set label 10 "linformer (abcde)" at 3.836,59.5569 center offset char 0,1.09505 front
set label 11 "local (bc)" at 6.6331,60.8539 center offset char 0,-1.06792 front
set label 12 "longformer" at 6.0202,55.216 center offset char 0,1.07322 front
set label 13 "mixer (ce)" at 16.6036,52.6764 center offset char 0,0.973881 front
set label 14 "performer (ce)" at 5.9607,53.0076 center offset char 8.31308,0 front
set label 15 "reformer (b)" at 2.5903,66.2309 center offset char 0,1.11278 front
set label 16 "rfa (d)" at 4.2156,48.2442 center offset char 0,1.1665 front
set label 17 "routing (ce)" at 3.5943,52.204 center offset char -7.22438,-1.04076 front
set label 18 "sinkhorn (ce)" at 5.8349,55.4776 center offset char -7.82083,-1.08899 front
set label 19 "strided (ce)" at 7.3174,51.711 center offset char -7.23608,0 front
set label 20 "synthesizer" at 0.5074,49.7279 center offset char 0,1.03267 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart.png'
set title "Attention Zoo on this CPU (preset mini): score, speed, memory"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 64), log scale"
set ylabel "score: mean test accuracy (%) over ListOps, Text, Retrieval, Image and Recall"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.234889:34.4173]
set yrange [24.664:77.7618]
set xtics ("0.5" 0.5, "1" 1, "2" 2, "5" 5, "10" 10, "20" 20)
set label 1 "full (a)" at 0.4228,72.0322 center offset char 0,2.31429 front
set label 2 "bigbird (a)" at 3.2823,72.2836 center offset char 0,1.17703 front
set label 3 "compressed" at 2.1489,52.2711 center offset char 0,1.03978 front
set label 4 "efficient" at 12.379,66.7411 center offset char 0,1.02384 front
set label 5 "flash (a)" at 1.0498,71.9118 center offset char 0,1.02886 front
set label 6 "fnet (de)" at 19.1207,49.0291 center offset char 0,0.965867 front
set label 7 "global" at 10.6246,63.2048 center offset char 0,1.02911 front
set label 8 "gmlp" at 0.796,52.4819 center offset char 0,1.44711 front
set label 9 "linear (d)" at 8.3155,47.7804 center offset char 0,1.02552 front
set label 10 "linformer (abcde)" at 3.836,59.5569 center offset char 0,1.09505 front
set label 11 "local (bc)" at 6.6331,60.8539 center offset char 0,-1.06792 front
set label 12 "longformer" at 6.0202,55.216 center offset char 0,1.07322 front
set label 13 "mixer (ce)" at 16.6036,52.6764 center offset char 0,0.973881 front
set label 14 "performer (ce)" at 5.9607,53.0076 center offset char 8.31308,0 front
set label 15 "reformer (b)" at 2.5903,66.2309 center offset char 0,1.11278 front
set label 16 "rfa (d)" at 4.2156,48.2442 center offset char 0,1.1665 front
set label 17 "routing (ce)" at 3.5943,52.204 center offset char -7.22438,-1.04076 front
set label 18 "sinkhorn (ce)" at 5.8349,55.4776 center offset char -7.82083,-1.08899 front
set label 19 "strided (ce)" at 7.3174,51.711 center offset char -7.23608,0 front
set label 20 "synthesizer" at 0.5074,49.7279 center offset char 0,1.03267 front
set arrow from graph 0, first 29.8025 to graph 1, first 29.8025 nohead dt 2 lc rgb '#888888'
set label 21 "chance (majority class)" at graph 0.01, first 29.8025 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#1f77b4' notitle, \
     $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle, \
     $f1 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#2ca02c' notitle, \
     $f1 using 2:3:4 with points pt 7 ps variable lc rgb '#702ca02c' title "fixed", $f1 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#2ca02c' notitle, \
     $f2 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#9467bd' notitle, \
     $f2 using 2:3:4 with points pt 7 ps variable lc rgb '#709467bd' title "low-rank/kernel", $f2 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#9467bd' notitle, \
     $f3 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#8c564b' notitle, \
     $f3 using 2:3:4 with points pt 7 ps variable lc rgb '#708c564b' title "attention-free", $f3 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#8c564b' notitle, \
     $f4 using 2:3:5 with yerrorbars pt 0 lw 1.2 lc rgb '#ff7f0e' notitle, \
     $f4 using 2:3:4 with points pt 7 ps variable lc rgb '#70ff7f0e' title "learned", $f4 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#ff7f0e' notitle

unset output
